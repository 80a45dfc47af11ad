/** Entries of `"type": "openapi"` made HTTP tool definitions from their OpenAPI documents. */
import { OPENAPI_SCHEMA, TOOL_NAME_PATTERN, validateOpenApi } from '../definition-schema.js';
import { describe } from '../field-hints.js';
import { ToolDefinitionError, where } from '../definition-error.js';
import type { OAuth2Input } from '../oauth2.js';
import type { ToolDefinitionInput } from '../tool-definition.js';
import { OperationError, operationTool, type OperationTool } from './openapi-operation.js';
import { entryHeaders, keyedQueryArguments, withoutArguments } from './entry-overrides.js';
import { MAX_PARAMETERS_CHARS } from './local-defs.js';
import type { DeclaredKey } from './openapi-security.js';
import {
  isSpecUrl,
  readSpec,
  SpecContentError,
  specLocation,
  type SpecVersion,
} from './spec-source.js';

const OPENAPI_FIELDS = new Set(Object.keys(OPENAPI_SCHEMA.properties));
/** The fields that say where the operation is, not part of the HTTP tool it makes. */
const OWN_FIELDS = new Set(['type', 'spec', 'operation', 'base_url', 'api_key']);
const NAME = new RegExp(TOOL_NAME_PATTERN);

export interface Expanded {
  /** The definitions, OpenAPI entries replaced by the HTTP definitions they make. */
  definitions: unknown;
  /** Index → the OpenAPI entry as given (what the tool's `raw` shows). */
  origins: Map<number, ToolDefinitionInput>;
  /** Index → why the tool is left pending: its document at a URL could not be read (see `defer`). */
  pending: Map<number, string>;
  /** Index → the version of the document at a URL its operation was read from. */
  versions: Map<number, SpecVersion>;
  warnings: string[];
}

/** The stand-in for a tool whose document cannot be read now: never offered, never called. */
const PENDING_URL = 'http://openapi-document-pending.invalid/';

/** Reads a document once per expansion (a file or a URL, see readSpec). */
function reader(baseDir: string, timeoutMs: number) {
  const specs = new Map<string, ReturnType<typeof readSpec>>();
  return (spec: string) => {
    const path = specLocation(spec, baseDir);
    if (!specs.has(path)) specs.set(path, readSpec(path, timeoutMs));
    return { path, spec: specs.get(path)! };
  };
}

/**
 * Replaces each OpenAPI entry of `input` by the HTTP tool its operation makes: the URL (the
 * document's server, or `base_url`, and the path), the method, the description and the
 * arguments' schema, unless the entry gives them; the entry's other fields (headers, retries,
 * confirm, …) apply as to any HTTP tool. Throws ToolDefinitionError naming the entry and field.
 * With `defer`, a tool whose document at a URL cannot be fetched is left pending instead; with
 * `defer: 'unusable'`, also one whose document was served but does not parse (at start-up: a
 * proxy's error page served as 200 is a service down; on a reload it is an error, and the tools
 * in use are kept). `kept` places (definitions already in use, kept as they are) are deferred as
 * with `defer: 'unusable'`.
 * Anything but an array is returned as it is, for the validation to refuse.
 */
export async function expandOpenApi(
  input: unknown,
  source: string,
  options: {
    baseDir: string;
    timeoutMs: number;
    defer?: 'unreachable' | 'unusable';
    kept?: ReadonlySet<number>;
  },
): Promise<Expanded> {
  const origins = new Map<number, ToolDefinitionInput>();
  const pending = new Map<number, string>();
  const versions = new Map<number, SpecVersion>();
  const warnings: string[] = [];
  if (!Array.isArray(input)) return { definitions: input, origins, pending, versions, warnings };
  const read = reader(options.baseDir, options.timeoutMs);
  const definitions = await Promise.all(
    input.map(async (entry: unknown, index) => {
      if ((entry as { type?: unknown } | null)?.type !== 'openapi') return entry;
      const def = entry as ToolDefinitionInput;
      const at = where(source, index, def.name);
      if (!validateOpenApi(def)) {
        const { field, why } = describe(validateOpenApi.errors![0]!);
        throw new ToolDefinitionError(`${at}: field '${field}' ${why}`);
      }
      for (const field of Object.keys(def))
        if (!OPENAPI_FIELDS.has(field))
          throw new ToolDefinitionError(
            `${at}: field '${field}' is not used by OpenAPI tools${field === 'url' || field === 'method' ? ": the operation gives it ('base_url' names another server)" : ''}`,
          );
      const { path, spec } = read(def.spec!);
      let made;
      try {
        const documentUrl = isSpecUrl(path) ? path : undefined;
        const { document, version } = await spec;
        made = operationTool(document, def.operation!, def.base_url, documentUrl);
        if (version) versions.set(index, version);
      } catch (error) {
        if (error instanceof OperationError)
          throw new ToolDefinitionError(
            `${at}: field '${error.field}'${error.message.startsWith('is ') ? ' ' : ': '}${error.message}`,
          );
        // The first line only: a YAML parser's message goes on to quote the file.
        const why = `cannot be read as an OpenAPI document (${path}): ${(error as Error).message.split('\n')[0]}`;
        const served = error instanceof SpecContentError;
        const defer = options.kept?.has(index) ? 'unusable' : options.defer;
        if (!defer || !isSpecUrl(def.spec!) || (served && defer === 'unreachable'))
          throw new ToolDefinitionError(`${at}: field 'spec' ${why}`);
        // A service that is down must not keep the engine, and every other tool, from starting.
        const name = def.name ?? (NAME.test(def.operation!) ? def.operation : undefined);
        if (name === undefined)
          throw new ToolDefinitionError(
            `${at}: field 'name' is required: the document ${why}, and the tool needs a name before it can be`,
          );
        origins.set(index, def);
        pending.set(index, `its document ${why}`);
        return { ...ownless(def), name, url: PENDING_URL, method: 'GET' };
      }
      const name = def.name ?? made.operationId;
      if (name === undefined || !NAME.test(name))
        throw new ToolDefinitionError(
          `${at}: field 'name' is required: the operation's id ${JSON.stringify(made.operationId ?? null)} is not a tool name (letters, digits, "_" or "-", 1 to 64)`,
        );
      if (def.parameters === undefined && made.tooLarge)
        throw new ToolDefinitionError(
          `${where(source, index, name)}: field 'parameters' is required: the operation's arguments make a schema of more than ${MAX_PARAMETERS_CHARS / 1024} KiB as JSON, more than a model should be given (its shared schemas written out wherever they are used): give 'parameters' naming what the model should send`,
        );
      const ref = made.unresolvedRef;
      if (def.parameters === undefined && ref !== undefined)
        throw new ToolDefinitionError(
          `${where(source, index, name)}: field 'parameters' is required: ${
            ref.startsWith('#')
              ? `the operation's arguments refer to ${JSON.stringify(ref)}, which the document does not hold`
              : `the operation's arguments refer to another document (${JSON.stringify(ref)}), which is not read for a document at a URL (only its own #/… references are followed)`
          }`,
        );
      if (made.skipped.length > 0)
        warnings.push(
          `${where(source, index, name)}: arguments of operation ${JSON.stringify(def.operation)} the tool cannot send are left out: ${made.skipped.join(', ')}`,
        );
      if (def.parameters === undefined)
        for (const note of made.notes)
          warnings.push(
            `${where(source, index, name)}: operation ${JSON.stringify(def.operation)}: ${note}`,
          );
      origins.set(index, def);
      const keyed = def.api_key === undefined ? undefined : withKey(made, def.api_key, at);
      const sent = entryHeaders(made, keyed?.headers, def.headers);
      const keyedQuery = keyedQueryArguments(made, keyed?.query ?? []);
      const queryArguments = made.queryArguments.filter((name) => !keyedQuery.includes(name));
      return {
        ...ownless(def),
        name,
        url: keyed?.url ?? made.url,
        method: made.method,
        description: def.description ?? made.description,
        parameters: def.parameters ?? withoutArguments(sent.parameters, keyedQuery),
        headers: sent.headers,
        ...(Object.keys(made.queryStyles).length > 0 && {
          query_styles: { ...made.queryStyles, ...(def.query_styles ?? {}) },
        }),
        ...(queryArguments.length > 0 && {
          query_arguments: [...new Set([...queryArguments, ...(def.query_arguments ?? [])])],
        }),
        ...(sent.headerArguments.length > 0 && {
          header_arguments: [
            ...new Set([...sent.headerArguments, ...(def.header_arguments ?? [])]),
          ],
        }),
        ...(Object.keys(made.placeholderStyles).length > 0 && {
          placeholder_styles: { ...made.placeholderStyles, ...(def.placeholder_styles ?? {}) },
        }),
        ...(def.oauth2 && { oauth2: withDeclaredFlow(def.oauth2, made, at) }),
        // Its arguments' names are the made parameters': the entry's own parameters send by theirs.
        ...(made.body !== undefined &&
          def.parameters === undefined &&
          def.body === undefined && { body: made.body }),
      };
    }),
  );
  return { definitions, origins, pending, versions, warnings };
}

/** The entry without the fields that say where its operation is. */
function ownless(def: ToolDefinitionInput): Record<string, unknown> {
  return Object.fromEntries(Object.entries(def).filter(([k]) => !OWN_FIELDS.has(k)));
}

/** A reference (`${TOOL_SECRET_…}`, `${session.…}`), kept as written in a URL: the engine encodes
 * the value it fills in. */
const REFERENCE = /(\$\{[^}]*\})/;

/**
 * The URL and headers that carry an entry's `api_key` where the operation's security says: an
 * apiKey scheme's query parameter, header or cookie, or HTTP bearer's Authorization. A string is
 * the one key its first requirement made of such schemes asks for; an object gives keys by scheme
 * name (a requirement asking for two together: an app id and an app key).
 */
function withKey(
  made: OperationTool,
  apiKey: string | Record<string, string>,
  at: string,
): { url: string; headers: Record<string, string>; query: string[] } {
  const { required, all } = made.keys ?? { all: {} };
  let keys: [DeclaredKey, string][];
  if (typeof apiKey === 'string') {
    if (!required)
      throw new ToolDefinitionError(
        `${at}: field 'api_key' has nowhere to go: the operation's security declares no apiKey or HTTP bearer scheme (give 'headers')`,
      );
    if (required.length > 1)
      throw new ToolDefinitionError(
        `${at}: field 'api_key' is one key, and the operation's security asks for ${required.length} together (${required.map(([name]) => name).join(', ')}): give them by scheme name, {${required.map(([name]) => `"${name}": "…"`).join(', ')}}`,
      );
    keys = [[required[0]![1], apiKey]];
  } else {
    keys = Object.entries(apiKey).map(([scheme, value]) => {
      if (!Object.hasOwn(all, scheme))
        throw new ToolDefinitionError(
          `${at}: field 'api_key.${scheme}' names no apiKey or HTTP bearer scheme of the document (it has: ${Object.keys(all).join(', ') || 'none'})`,
        );
      return [all[scheme]!, value];
    });
  }
  let url = made.url;
  const headers: Record<string, string> = {};
  const query: string[] = [];
  for (const [place, value] of keys) {
    if (place.in === 'bearer') headers.Authorization = `Bearer ${value}`;
    else if (place.in === 'header') headers[place.name] = value;
    else if (place.in === 'cookie')
      headers.Cookie = [headers.Cookie, `${place.name}=${value}`].filter(Boolean).join('; ');
    else {
      url += `${url.includes('?') ? '&' : '?'}${encodeURIComponent(place.name)}=${inQuery(value)}`;
      query.push(place.name);
    }
  }
  return { url, headers, query };
}

/**
 * A key written out percent-encoded (braces too: no placeholder is read in a key); a reference
 * kept, the engine encoding the value it fills in.
 */
const inQuery = (key: string) =>
  key
    .split(REFERENCE)
    .map((part, i) => (i % 2 ? part : encodeURIComponent(part)))
    .join('');

/**
 * An entry's `oauth2` with what it leaves out (token_url, scope) from the client-credentials
 * flow the operation's security declares.
 */
function withDeclaredFlow(oauth2: OAuth2Input, made: OperationTool, at: string): OAuth2Input {
  if (oauth2.token_url !== undefined) return oauth2;
  const declared = made.clientCredentials;
  if (!declared)
    throw new ToolDefinitionError(
      `${at}: field 'oauth2.token_url' is required: the operation's security declares no OAuth 2.0 clientCredentials flow to take it from`,
    );
  const scope = oauth2.scope ?? declared.scope;
  return { ...oauth2, token_url: declared.tokenUrl, ...(scope !== undefined && { scope }) };
}
