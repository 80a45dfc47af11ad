/**
 * An OpenAPI 3 operation as the fields of an HTTP tool: URL template, method, description and
 * the JSON Schema of its arguments. Pure: no Nest import; the spec is already dereferenced.
 */
import { encodeText } from '../argument-text.js';
import { QUERY_VERBS } from '../http-request-builder.js';
import {
  declaredClientCredentials,
  declaredKeys,
  type DeclaredClientCredentials,
  type DeclaredKeys,
} from './openapi-security.js';
import type { JsonSchema, PlaceholderStyle, QueryStyle } from '../tool-definition.js';
import { bodyArguments, placeBody, skippedBody, type RequestBody } from './openapi-body.js';
import { toJsonSchema } from './openapi-schema.js';
import { bodyRefsFollowed, largerThan, MAX_PARAMETERS_CHARS, withLocalDefs } from './local-defs.js';
import { OperationError } from './operation-error.js';
import { serverUrl } from './openapi-server.js';
import {
  IGNORED_HEADERS,
  onlyValue,
  type Parameter,
  PLACEHOLDER_NAME,
  placeholder,
  placeholderStyle,
  queryStyle,
  SCALARS,
} from './operation-parameters.js';

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
export { OperationError };

interface Operation {
  operationId?: unknown;
  tags?: unknown;
  security?: unknown;
  summary?: unknown;
  description?: unknown;
  parameters?: Parameter[];
  requestBody?: RequestBody;
}
/** A path item: operations by lower-case method, and parameters they share. */
type PathItem = Record<string, unknown>;
/** An OpenAPI 3 document, dereferenced, as far as the engine reads it. */
export interface OpenApiSpec {
  paths?: Record<string, PathItem>;
  servers?: { url?: string; variables?: Record<string, { default?: string }> }[];
  security?: unknown;
  components?: { securitySchemes?: Record<string, unknown> };
}

/** What an operation gives an HTTP tool; `skipped` names the arguments it cannot send. */
export interface OperationTool {
  url: string;
  method: string;
  description: string;
  parameters: JsonSchema;
  headers: Record<string, string>;
  /** How its query parameters' arrays and objects are written (`query_styles`). */
  queryStyles: Record<string, QueryStyle>;
  /** Its query parameters, of a verb that sends a body (`query_arguments`). */
  queryArguments: string[];
  /** Its header parameters, sent in their headers only, left out when not given (`header_arguments`). */
  headerArguments: string[];
  /** How its path and header parameters' arrays and objects are written (`placeholder_styles`). */
  placeholderStyles: Record<string, PlaceholderStyle>;
  operationId?: string;
  /** Its `tags`: words a search may find it by (a deferred tool's `keywords`). */
  tags: string[];
  skipped: string[];
  /** What the model is offered otherwise than the document has it (see bodyArguments, placeBody). */
  notes: string[];
  /** The body written by argument: a property offered under another name, or a body given whole. */
  body?: Record<string, string> | string;
  /**
   * The first `$ref` its arguments' schema leaves unresolved, which `parameters` cannot show: one
   * to another document (not followed for a document at a URL), or to nothing. (A recursive one
   * points into the parameters' `$defs`: local-defs.ts.)
   */
  unresolvedRef?: string;
  /** Its arguments make a schema larger than MAX_PARAMETERS_CHARS: `parameters` is not built. */
  tooLarge?: true;
  /** The OAuth 2.0 client-credentials flow its security declares. */
  clientCredentials?: DeclaredClientCredentials;
  /** Where its security puts keys (an entry's `api_key`), when the document has key schemes. */
  keys?: DeclaredKeys;
}

/** The operation `ref` names: its operationId, or `METHOD /path` as the spec writes the path. */
function findOperation(
  spec: OpenApiSpec,
  ref: string,
): { method: string; path: string; op: Operation; shared: Parameter[] } {
  const paths = spec.paths ?? {};
  const byRoute = /^([A-Za-z]+)\s+(\/\S*)$/.exec(ref.trim());
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item?.[method] as Operation | undefined;
      if (!op) continue;
      const hit = byRoute
        ? byRoute[1]!.toLowerCase() === method && byRoute[2] === path
        : op.operationId === ref;
      const shared = (item.parameters as Parameter[] | undefined) ?? [];
      if (hit) return { method: method.toUpperCase(), path, op, shared };
    }
  }
  const ids = Object.values(paths).flatMap((item) =>
    METHODS.map((m) => (item?.[m] as Operation | undefined)?.operationId).filter(
      (id): id is string => typeof id === 'string',
    ),
  );
  throw new OperationError(
    'operation',
    `the spec has no operation ${JSON.stringify(ref)} (give an operationId or "METHOD /path"; it has: ${ids.slice(0, 30).join(', ') || 'none with an operationId'})`,
  );
}

/**
 * The HTTP tool for operation `ref` of `spec`. Path parameters become URL placeholders; query
 * parameters stay arguments (sent in the query for GET, HEAD, OPTIONS, TRACE, DELETE; for other
 * verbs as `query_arguments`); header
 * parameters become header placeholders (`header_arguments`); a JSON object body's properties become
 * arguments. A required parameter that can take one value only is written in, not offered. Cookie
 * parameters are skipped.
 */
export function operationTool(
  spec: OpenApiSpec,
  ref: string,
  baseUrl?: string,
  documentUrl?: string,
): OperationTool {
  const found = findOperation(spec, ref);
  const { method, op, shared } = found;
  let path = found.path;
  const byKey = new Map<string, Parameter>();
  for (const p of [...shared, ...(op.parameters ?? [])]) byKey.set(`${p.in}:${p.name}`, p);
  const properties: Record<string, JsonSchema> = {};
  const required = new Set<string>();
  const headers: Record<string, string> = {};
  const query: string[] = [];
  const queryArguments: string[] = [];
  const headerArguments: string[] = [];
  const queryStyles: Record<string, QueryStyle> = {};
  const placeholderStyles: Record<string, PlaceholderStyle> = {};
  const skipped: string[] = [];
  const requestBody = bodyRefsFollowed(op.requestBody, spec);
  // A DELETE whose document requires a body (a bulk delete's ids) sends it: the operation cannot
  // be made without it (OpenAPI 3.0 has an optional one ignored; 3.1 permits it). Its query
  // parameters are then `query_arguments`, as another verb's.
  const sendsBody =
    !QUERY_VERBS.has(method) || (method === 'DELETE' && requestBody?.required === true);
  const take = (p: Parameter) => {
    if (Object.hasOwn(properties, p.name))
      throw new OperationError('operation', `two of its parameters are named '${p.name}'`);
    properties[p.name] = {
      ...(p.schema ?? {}),
      ...(p.description && { description: p.description }),
    };
    if (p.required || p.in === 'path') required.add(p.name);
  };
  // A parameter of one name in two places (Google's `key` query parameter, its API key, beside a
  // path's `{key}`): the optional one outside the path is left out, not the operation refused.
  const shadowed = (p: Parameter) =>
    p.in !== 'path' &&
    !p.required &&
    [...byKey.values()].some(
      (o) => o !== p && o.name === p.name && (o.in === 'path' || o.required),
    );
  for (const p of byKey.values()) {
    if (shadowed(p)) {
      skipped.push(`${p.in} parameter '${p.name}' (another parameter has its name)`);
      continue;
    }
    // OpenAPI: such a header parameter "SHALL be ignored" (the body's type, the security's key).
    if (p.in === 'header' && IGNORED_HEADERS.has(p.name.toLowerCase())) continue;
    const unnamable = p.in === 'header' && !p.required && !PLACEHOLDER_NAME.test(p.name);
    if (p.in === 'cookie' || unnamable) {
      skipped.push(`${p.in} parameter '${p.name}'`);
      continue;
    }
    const fixed = p.required || p.in === 'path' ? onlyValue(p.schema) : undefined;
    // A version header or query parameter of one value (`api-version`): nothing to choose.
    if (fixed !== undefined && !(p.in === 'header' && /[{}$]/.test(fixed))) {
      if (p.in === 'header') headers[p.name] = fixed;
      else if (p.in === 'query') query.push(`${encodeText(p.name)}=${encodeText(fixed)}`);
      else path = path.replaceAll(`{${p.name}}`, encodeText(fixed));
      continue;
    }
    // Another verb's query parameters go there too (`query_arguments`; a required one is
    // required of the model), whatever their names.
    if (p.in === 'query') {
      if (sendsBody) queryArguments.push(p.name);
      if (!SCALARS.has(String(p.schema?.type))) queryStyles[p.name] = queryStyle(p);
    }
    if (p.in === 'header') {
      headers[p.name] = placeholder(p);
      headerArguments.push(p.name);
    }
    if (p.in === 'path') placeholder(p);
    const styled = p.in === 'path' || p.in === 'header' ? placeholderStyle(p) : undefined;
    if (styled) placeholderStyles[p.name] = styled;
    take(p);
  }
  // A path variable the operation does not declare (a common slip in real documents): without
  // it among the arguments, the model could never fill the URL.
  for (const [, name = ''] of path.matchAll(/\{([^}]*)\}/g)) {
    if (byKey.has(`path:${name}`) || Object.hasOwn(properties, name)) continue;
    placeholder({ name, in: 'path' });
    take({ name, in: 'path', schema: { type: 'string' } });
  }
  const body = sendsBody ? bodyArguments(requestBody) : undefined;
  const leftOut = !sendsBody || body ? undefined : skippedBody(requestBody);
  if (leftOut) skipped.push(leftOut);
  // A DELETE's body is written by template: the builder sends a query verb's other arguments in
  // the query.
  const placed = body && placeBody(body, new Set(Object.keys(properties)), QUERY_VERBS.has(method));
  Object.assign(properties, placed?.properties);
  for (const name of placed?.required ?? []) required.add(name);
  if (body?.form)
    headers['Content-Type'] = body.multipart
      ? 'multipart/form-data'
      : 'application/x-www-form-urlencoded';
  if (body?.whole) headers['Content-Type'] = body.whole;
  // A recursive schema's refs, which dereferencing leaves, point into the parameters' own $defs;
  // a schema too large to offer is not built (the entry must give its parameters).
  const all = { type: 'object', properties, ...(required.size > 0 && { required: [...required] }) };
  const offered = largerThan(properties, MAX_PARAMETERS_CHARS)
    ? { schema: all, tooLarge: true as const }
    : withLocalDefs(all, spec);
  const parameters = offered.tooLarge ? { type: 'object' } : toJsonSchema(offered.schema);
  const notes = [body?.note, placed?.note].filter((n) => n !== undefined);
  const summary = typeof op.summary === 'string' ? op.summary.trim() : '';
  const details = typeof op.description === 'string' ? op.description.trim() : '';
  const server = serverUrl(spec, baseUrl, documentUrl);
  const url = `${server}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
  const clientCredentials = declaredClientCredentials(spec, op, server);
  const keys = declaredKeys(spec, op);
  return {
    url,
    method,
    // An operation the document leaves undescribed is at least its method and path.
    description:
      [summary, details].filter((t, i, all) => t && all.indexOf(t) === i).join('\n\n') ||
      `${method} ${found.path}`,
    parameters,
    headers,
    queryStyles,
    queryArguments,
    headerArguments,
    placeholderStyles,
    ...(typeof op.operationId === 'string' && { operationId: op.operationId }),
    tags: Array.isArray(op.tags) ? op.tags.filter((t) => typeof t === 'string') : [],
    skipped,
    ...(placed?.template && { body: placed.template }),
    // A verb that sends a body, of an operation that declares none (or one it cannot send): none.
    ...(sendsBody && !body && { body: '' }),
    notes,
    ...('unresolved' in offered && { unresolvedRef: offered.unresolved }),
    ...(offered.tooLarge && { tooLarge: true }),
    ...(clientCredentials && { clientCredentials }),
    ...(Object.keys(keys.all).length > 0 && { keys }),
  };
}
