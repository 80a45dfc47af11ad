/** Entries of `"type": "openapi"` made HTTP tool definitions from their OpenAPI documents. */
import { TOOL_NAME_PATTERN } from '../definition-schema.js';
import { ToolDefinitionError, where } from '../definition-error.js';
import type { ToolDefinitionInput } from '../tool-definition.js';
import { OperationError, operationTool } from './openapi-operation.js';
import {
  entryHeaders,
  keyedQueryArguments,
  withDeclaredFlow,
  withKey,
  withoutArguments,
} from './entry-overrides.js';
import { MAX_PARAMETERS_CHARS } from './local-defs.js';
import { parametersProblem } from '../parameters-schema.js';
import { checkEntry, reader, unreadable, type ExpandOptions, type Read } from './openapi-entry.js';
import { GROUP_FIELDS } from './openapi-operations.js';
import { spreadGroups, standIn, type Placed } from './openapi-spread.js';
import { isSpecUrl, type SpecVersion } from './spec-source.js';

export type { ExpandOptions };
/** The fields that say where the operation is, not part of the HTTP tool it makes. */
const OWN_FIELDS = new Set(['type', 'spec', 'operation', 'base_url', 'api_key', ...GROUP_FIELDS]);
const NAME = new RegExp(TOOL_NAME_PATTERN);

export interface Expanded {
  /** The definitions, OpenAPI entries replaced by the HTTP definitions they make. */
  definitions: unknown;
  /** Index → the OpenAPI entry as given, or made for one operation (what the tool's `raw` shows). */
  origins: Map<number, ToolDefinitionInput>;
  /** Index → why the tool is left pending: its document at a URL could not be read (see `defer`). */
  pending: Map<number, string>;
  /** Index → the version of the document at a URL its operation was read from. */
  versions: Map<number, SpecVersion>;
  /**
   * Index → the `prefix` of an entry for several operations left pending (its document could not
   * be read): it stands for them, named `prefix*`, until it can be.
   */
  groups: Map<number, string>;
  /** Index → the place in the input of the entry that made it (one for several makes many). */
  placeOf: number[];
  warnings: string[];
}

/** The stand-in for a tool whose document cannot be read now: never offered, never called. */
const PENDING_URL = 'http://openapi-document-pending.invalid/';

/** What one entry becomes; none for an operation of `"*"` left out. */
interface Made {
  definition: unknown;
  origin?: ToolDefinitionInput;
  pending?: string;
  version?: SpecVersion;
  group?: string;
}

/**
 * Replaces each OpenAPI entry of `input` by the HTTP tool its operation makes: the URL (the
 * document's server, or `base_url`, and the path), the method, the description and the
 * arguments' schema, unless the entry gives them; the entry's other fields (headers, retries,
 * confirm, …) apply as to any HTTP tool. An entry for several operations (`operations`) is
 * replaced by one tool per operation (see spreadOperations), at its place. Throws
 * ToolDefinitionError naming the entry (its place in `input`) and field.
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
  options: ExpandOptions,
): Promise<Expanded> {
  const origins = new Map<number, ToolDefinitionInput>();
  const pending = new Map<number, string>();
  const versions = new Map<number, SpecVersion>();
  const groups = new Map<number, string>();
  const warnings: string[] = [];
  const placeOf: number[] = [];
  const expanded = { origins, pending, versions, groups, placeOf, warnings };
  if (!Array.isArray(input)) return { definitions: input, ...expanded };
  const read = reader(options.baseDir, options.timeoutMs);
  const placed = await spreadGroups(input, source, read, options, warnings);
  const made = await Promise.all(
    placed.map(async (item) => {
      try {
        return await expandEntry(item, source, read, options, warnings);
      } catch (error) {
        if (!(item.lenient && error instanceof ToolDefinitionError)) throw error;
        warnings.push(`${error.message}; the operation is left out of the entry's tools`);
        return undefined;
      }
    }),
  );
  const definitions: unknown[] = [];
  for (const [i, one] of made.entries()) {
    if (!one) continue;
    const index = definitions.push(one.definition) - 1;
    placeOf.push(placed[i]!.place);
    if (one.origin) origins.set(index, one.origin);
    if (one.pending !== undefined) pending.set(index, one.pending);
    if (one.version) versions.set(index, one.version);
    if (one.group !== undefined) groups.set(index, one.group);
  }
  return { definitions, ...expanded };
}

/** What one entry of the input becomes (an OpenAPI entry, the HTTP tool; others as they are). */
async function expandEntry(
  item: Placed,
  source: string,
  read: Read,
  options: ExpandOptions,
  warnings: string[],
): Promise<Made> {
  const { entry, place: index } = item;
  if ((entry as { type?: unknown } | null)?.type !== 'openapi') return { definition: entry };
  const def = entry as ToolDefinitionInput;
  const at = where(source, index, def.name);
  // A service that is down must not keep the engine, and every other tool, from starting.
  const pendingAs = (name: string, why: string) => ({
    definition: { ...ownless(def), name, url: PENDING_URL, method: 'GET' },
    origin: def,
    pending: `its document ${why}`,
  });
  if (item.unread !== undefined)
    return { ...pendingAs(standIn(index), item.unread), group: def.prefix ?? '' };
  checkEntry(def, at);
  const { path, spec } = read(def.spec!);
  let made;
  let version;
  try {
    const documentUrl = isSpecUrl(path) ? path : undefined;
    const { document, version: read } = await spec;
    made = operationTool(document, def.operation!, def.base_url, documentUrl);
    version = read;
  } catch (error) {
    if (error instanceof OperationError)
      throw new ToolDefinitionError(
        `${at}: field '${error.field}'${error.message.startsWith('is ') ? ' ' : ': '}${error.message}`,
      );
    const why = unreadable(error, def, path, at, index, options);
    const name = def.name ?? (NAME.test(def.operation!) ? def.operation : undefined);
    if (name === undefined)
      throw new ToolDefinitionError(
        `${at}: field 'name' is required: the document ${why}, and the tool needs a name before it can be`,
      );
    return pendingAs(name, why);
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
  const keyed = def.api_key === undefined ? undefined : withKey(made, def.api_key, at);
  const sent = entryHeaders(made, keyed?.headers, def.headers);
  const keyedQuery = keyedQueryArguments(made, keyed?.query ?? []);
  const queryArguments = made.queryArguments.filter((name) => !keyedQuery.includes(name));
  const definition = {
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
      header_arguments: [...new Set([...sent.headerArguments, ...(def.header_arguments ?? [])])],
    }),
    ...(Object.keys(made.placeholderStyles).length > 0 && {
      placeholder_styles: { ...made.placeholderStyles, ...(def.placeholder_styles ?? {}) },
    }),
    ...(def.oauth2 && { oauth2: withDeclaredFlow(def.oauth2, made, at) }),
    // A search finds a deferred operation by its tags too.
    ...(def.deferred &&
      made.tags.length > 0 && { keywords: [...new Set([...(def.keywords ?? []), ...made.tags])] }),
    // Its arguments' names are the made parameters': the entry's own parameters send by theirs.
    ...(made.body !== undefined &&
      def.parameters === undefined &&
      def.body === undefined && { body: made.body }),
  };
  // A schema the document got wrong is the document's fault: said so, and for an entry of "*"
  // the operation alone is left out (see expandOpenApi), not the document's every tool.
  const problem = def.parameters === undefined && parametersProblem(definition.parameters);
  if (problem)
    throw new ToolDefinitionError(
      `${where(source, index, name)}: field 'parameters' is required: the operation's arguments make a schema that ${problem}`,
    );
  return { definition, origin: def, ...(version && { version }) };
}

/** The entry without the fields that say where its operation is. */
function ownless(def: ToolDefinitionInput): Record<string, unknown> {
  return Object.fromEntries(Object.entries(def).filter(([k]) => !OWN_FIELDS.has(k)));
}
