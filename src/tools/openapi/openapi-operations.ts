/**
 * An OpenAPI entry for several operations of its document (`"operations": "*"` or a list): the
 * entries, one operation each, it stands for. Pure: no Nest import.
 */
import { ToolDefinitionError } from '../definition-error.js';
import type { ToolDefinitionInput } from '../definition-input.js';
import { uniqueName } from '../tool-names.js';
import { METHODS, type OpenApiSpec } from './openapi-operation.js';
import { declaredClientCredentials, declaredKeys } from './openapi-security.js';

/** What says which operations: not part of the entries made. */
export const GROUP_FIELDS = ['operations', 'prefix', 'tags', 'methods', 'exclude'];
/** What names one tool, or one operation's arguments: meaningless for several. */
const ONE_TOOL = [
  'name',
  'operation',
  'description',
  'parameters',
  'body',
  'query_arguments',
  'header_arguments',
  'query_styles',
  'placeholder_styles',
];

/** An operation of a document, as the entries for several read it. */
export interface DocumentOperation {
  /** `METHOD /path`, as an entry's `operation` may name it. */
  route: string;
  operationId?: string;
  deprecated: boolean;
  tags: string[];
  security?: unknown;
}

/** The document's operations, in its order. */
export function documentOperations(spec: OpenApiSpec): DocumentOperation[] {
  return Object.entries(spec.paths ?? {}).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const op = item?.[method] as Record<string, unknown> | undefined;
      if (!op || typeof op !== 'object') return [];
      const tags = Array.isArray(op.tags) ? op.tags.filter((t) => typeof t === 'string') : [];
      return [
        {
          route: `${method.toUpperCase()} ${path}`,
          ...(typeof op.operationId === 'string' && { operationId: op.operationId }),
          deprecated: op.deprecated === true,
          tags,
          ...(op.security !== undefined && { security: op.security }),
        },
      ];
    }),
  );
}

/** Whether an entry's `operation` (an operationId, or `METHOD /path`) names `op`. */
export function namesOperation(ref: string, op: DocumentOperation): boolean {
  const byRoute = /^([A-Za-z]+)\s+(\/\S*)$/.exec(ref.trim());
  return byRoute
    ? `${byRoute[1]!.toUpperCase()} ${byRoute[2]}` === op.route
    : ref === op.operationId;
}

/** Whether an OpenAPI entry stands for several operations, or for one. */
export const isGroup = (def: ToolDefinitionInput) => def.operations !== undefined;

/**
 * An entry's fields that say which operations, checked: one for several operations names none of
 * them alone (no `name`, `operation`, `description`, `parameters`, nor fields naming one's
 * arguments); `prefix`, `tags` and `methods` need `operations`, `tags` and `methods` its `"*"`.
 */
export function checkOperationsFields(def: ToolDefinitionInput, at: string): void {
  if (!isGroup(def)) {
    const lone = GROUP_FIELDS.find((field) => field !== 'operations' && Object.hasOwn(def, field));
    if (lone)
      throw new ToolDefinitionError(
        `${at}: field '${lone}' is for an entry of several operations ('operations'), which this one is not`,
      );
    if (def.operation === undefined)
      throw new ToolDefinitionError(
        `${at}: field 'operation' is required (or 'operations', "*" or a list, for several)`,
      );
    return;
  }
  const one = ONE_TOOL.find((field) => Object.hasOwn(def, field));
  if (one)
    throw new ToolDefinitionError(
      `${at}: field '${one}' is not for an entry of several operations: ${one === 'name' ? "each tool is named after its operation ('prefix' goes before the names)" : 'give the operation an entry of its own, which the entry for several leaves to it'}`,
    );
  const choosing = (['tags', 'methods', 'exclude'] as const).find(
    (field) => def[field] !== undefined,
  );
  if (choosing && def.operations !== '*')
    throw new ToolDefinitionError(
      `${at}: field '${choosing}' chooses among all the operations ("operations": "*"), not among those listed`,
    );
}

/** Why the set leaves an operation to another entry: one for it, or one of its name. */
export type Taken = 'operation' | 'name';

/** What an entry for several operations stands for. */
export interface Spread {
  /** The entries, one operation each, and whether it was named (else chosen by `"*"`). */
  entries: { entry: ToolDefinitionInput; named: boolean }[];
  warnings: string[];
}

/**
 * The entries, one operation each, that `group` (an entry of `operations`) stands for in `spec`:
 * named `prefix` and the operationId (or the method and path: `get_orders_id`), other characters
 * than letters, digits, `_` and `-` as `_`, `_2` for a clash among `made` (the names entries for
 * several made before, added to); each with the group's other fields, its `api_key` and `oauth2`
 * only where the operation's security takes them. `"*"` leaves out deprecated operations, those
 * none of `tags` tags and those of other `methods`. An operation `taken` says the set has an
 * entry of its own for (the same operation of the same document, or its name: a warning) is left
 * to it. Throws ToolDefinitionError for an operation named that the document lacks, and for a key
 * no operation chosen takes.
 */
export function spreadOperations(
  group: ToolDefinitionInput,
  spec: OpenApiSpec,
  taken: (name: string, op: DocumentOperation) => Taken | undefined,
  made: Set<string>,
  at: string,
): Spread {
  const all = documentOperations(spec);
  const wanted = group.operations!;
  /** The operation `ref` (in field `field`) names; refused when it names none. */
  const named = (field: string) => (ref: string) => {
    const op = all.find((o) => namesOperation(ref, o));
    if (op) return op;
    throw new ToolDefinitionError(
      `${at}: field '${field}': the document has no operation ${JSON.stringify(ref)} (give operationIds or "METHOD /path"; it has: ${all
        .slice(0, 30)
        .map((o) => o.operationId ?? o.route)
        .join(', ')}${all.length > 30 ? `, … (${all.length} in all)` : ''})`,
    );
  };
  // A name left out that names nothing would leave in the operation meant: refused.
  const excluded = (group.exclude ?? []).map(named('exclude'));
  /** Of `"*"`: tagged so, of those methods, not excluded. */
  const among = (op: DocumentOperation) => chosenBy(op, group) && !excluded.includes(op);
  const chosen =
    wanted === '*'
      ? all.filter((op) => !op.deprecated && among(op))
      : [...new Set(wanted.map(named('operations')))];
  const shared = Object.fromEntries(
    Object.entries(group).filter(([field]) => !GROUP_FIELDS.includes(field)),
  ) as ToolDefinitionInput;
  const { api_key: key, oauth2, ...rest } = shared;
  const flowDeclared = oauth2 !== undefined && oauth2.token_url === undefined;
  const schemes = declaredKeys(spec, {}).all;
  for (const scheme of typeof key === 'object' ? Object.keys(key) : [])
    if (!Object.hasOwn(schemes, scheme))
      throw new ToolDefinitionError(
        `${at}: field 'api_key.${scheme}' names no apiKey or HTTP bearer scheme of the document (it has: ${Object.keys(schemes).join(', ') || 'none'})`,
      );
  const keyOf = (op: DocumentOperation) =>
    key === undefined ? undefined : keyFor(key, declaredKeys(spec, op).required);
  const takesFlow = (op: DocumentOperation) =>
    flowDeclared && declaredClientCredentials(spec, op, 'http://h/') !== undefined;
  if (key !== undefined && chosen.length > 0 && !chosen.some((op) => keyOf(op) !== undefined))
    throw new ToolDefinitionError(
      `${at}: field 'api_key' has nowhere to go: the security of none of its operations takes ${typeof key === 'string' ? 'one key of an apiKey or HTTP bearer scheme' : 'those schemes'} (give 'headers')`,
    );
  if (flowDeclared && chosen.length > 0 && !chosen.some(takesFlow))
    throw new ToolDefinitionError(
      `${at}: field 'oauth2.token_url' is required: the security of none of its operations declares an OAuth 2.0 clientCredentials flow to take it from`,
    );
  // An operationId the document gives twice (a slip) names the first: the others go by route.
  const ids = all.map((op) => op.operationId);
  const refOf = (op: DocumentOperation) =>
    op.operationId !== undefined && ids.indexOf(op.operationId) === ids.lastIndexOf(op.operationId)
      ? op.operationId
      : op.route;
  const clashes: string[] = [];
  const entries: Spread['entries'] = [];
  for (const op of chosen) {
    const [method, path] = op.route.split(' ') as [string, string];
    const base = op.operationId ?? `${method.toLowerCase()}${path}`.replace(/[^A-Za-z0-9]+/g, '_');
    const name = uniqueName(`${group.prefix ?? ''}${base.replace(/_$/, '')}`, made);
    const own = taken(name, op);
    if (own === 'name') clashes.push(`${op.operationId ?? op.route} (${name})`);
    if (own) continue;
    const opKey = keyOf(op);
    const entry = {
      ...rest,
      name,
      operation: refOf(op),
      ...(opKey !== undefined && { api_key: opKey }),
      ...(oauth2 !== undefined && (!flowDeclared || takesFlow(op)) && { oauth2 }),
    };
    entries.push({ entry, named: wanted !== '*' });
  }
  const warnings = [];
  const deprecated = wanted === '*' ? all.filter((op) => op.deprecated && among(op)) : [];
  if (deprecated.length > 0)
    warnings.push(
      `${at}: deprecated operations are left out (list them in 'operations' to take them): ${names(deprecated)}`,
    );
  if (clashes.length > 0)
    warnings.push(
      `${at}: operations are left out whose names other entries have (give a 'prefix'): ${clashes.join(', ')}`,
    );
  if (entries.length === 0)
    warnings.push(
      `${at}: the entry for the document's operations makes none: ${chosen.length > 0 ? 'the set has an entry of its own for each' : all.length === 0 ? 'the document has none' : "each is deprecated, or left out by its 'tags', 'methods' or 'exclude'"}`,
    );
  return { entries, warnings };
}

const names = (ops: DocumentOperation[]) => ops.map((op) => op.operationId ?? op.route).join(', ');

/** Whether `op` has one of the entry's `tags` and `methods` (any, of those it does not give). */
const chosenBy = (op: DocumentOperation, { tags, methods }: ToolDefinitionInput) =>
  (tags === undefined || op.tags.some((tag) => tags.includes(tag))) &&
  (methods === undefined || methods.includes(op.route.split(' ')[0]!));

/**
 * The key an operation of the entry takes: the key, when its security asks for one; those of the
 * schemes it asks for, of keys given by scheme; none when it takes none.
 */
function keyFor(
  key: string | Record<string, string>,
  required: [string, unknown][] | undefined,
): string | Record<string, string> | undefined {
  if (!required) return undefined;
  if (typeof key === 'string') return key;
  const asked = Object.entries(key).filter(([scheme]) => required.some(([s]) => s === scheme));
  return asked.length > 0 ? Object.fromEntries(asked) : undefined;
}
