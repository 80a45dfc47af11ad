/** OpenAPI entries for several operations, each at its place as the entries of one it stands for. */
import { renamePlaces, where } from '../definition-error.js';
import type { ToolDefinitionInput } from '../definition-input.js';
import { checkEntry, unreadable, type ExpandOptions, type Read } from './openapi-entry.js';
import {
  isGroup,
  namesOperation,
  spreadOperations,
  type DocumentOperation,
  type Taken,
} from './openapi-operations.js';
import { specLocation } from './spec-source.js';

/**
 * The name an entry for several operations, its document unread, has while it is validated (a
 * name no tool has); then `prefix*` (see ToolLoader.validate, atEntries).
 */
export const standIn = (place: number) => `-openapi-${place}`;

/** An entry at its place in the input: as given, or made for one of several operations. */
export interface Placed {
  entry: unknown;
  place: number;
  /** Chosen by `"*"`: an operation that cannot be a tool is left out, not refused. */
  lenient?: true;
  /** An entry for several operations whose document cannot be read now: why. */
  unread?: string;
}

/**
 * `input`'s entries at their places, each entry for several operations as the entries of one
 * operation it stands for (or as itself, its document unread, when that may be left pending).
 */
export async function spreadGroups(
  input: unknown[],
  source: string,
  read: Read,
  options: ExpandOptions,
  warnings: string[],
): Promise<Placed[]> {
  const taken = takenBy([...input, ...(options.others ?? [])], options.baseDir);
  const isGroupEntry = (entry: unknown) =>
    (entry as ToolDefinitionInput | null)?.type === 'openapi' &&
    isGroup(entry as ToolDefinitionInput);
  // Each entry checked, and the documents read all at once (awaited in order below).
  for (const [place, entry] of input.entries()) {
    if (!isGroupEntry(entry)) continue;
    checkEntry(entry as ToolDefinitionInput, where(source, place));
    read((entry as ToolDefinitionInput).spec!).spec.catch(() => undefined);
  }
  const made = new Set<string>();
  const placed: Placed[] = [];
  for (const [place, entry] of input.entries()) {
    const def = entry as ToolDefinitionInput;
    if (!isGroupEntry(entry)) {
      placed.push({ entry, place });
      continue;
    }
    const at = where(source, place);
    const { path, spec } = read(def.spec!);
    let document;
    try {
      document = (await spec).document;
    } catch (error) {
      placed.push({ entry, place, unread: unreadable(error, def, path, at, place, options) });
      continue;
    }
    const spread = spreadOperations(def, document, taken(path), made, at);
    warnings.push(...spread.warnings);
    for (const { entry: one, named } of spread.entries)
      placed.push({ entry: one, place, ...(!named && { lenient: true as const }) });
  }
  return placed;
}

/**
 * Whether the set (`entries`) has an entry of its own for a tool an entry for several operations
 * of the document at `path` would make: for the same operation of that document (or an entry for
 * several made it before: the operations it makes are added), or of its name.
 */
function takenBy(entries: readonly unknown[], baseDir: string) {
  const names = new Set<string>();
  const operations: { path: string; ref: string }[] = [];
  for (const entry of entries) {
    const def = entry as ToolDefinitionInput | null;
    if (typeof def !== 'object' || def === null || (def.type === 'openapi' && isGroup(def)))
      continue;
    if (typeof def.name === 'string') names.add(def.name);
    if (def.type !== 'openapi' || typeof def.operation !== 'string') continue;
    if (def.name === undefined) names.add(def.operation);
    if (typeof def.spec === 'string')
      operations.push({ path: specLocation(def.spec, baseDir), ref: def.operation });
  }
  return (path: string) =>
    (name: string, op: DocumentOperation): Taken | undefined => {
      const own = operations.some((o) => o.path === path && namesOperation(o.ref, op));
      operations.push({ path, ref: op.route });
      return own ? 'operation' : names.has(name) ? 'name' : undefined;
    };
}

/**
 * `message` about the definitions an expansion made, naming instead the place of the entry each
 * came from (`placeOf`: an entry for several operations makes many): `tools.json: tool #5
 * 'orders_getOrder'` → `tools.json: tool #2 'orders_getOrder'`; and an entry for several whose
 * document is unread by its name (`groups`: index → its prefix, `shop_*`), not its stand-in's.
 */
export function atEntries(
  message: string,
  source: string,
  placeOf: readonly number[],
  groups: ReadonlyMap<number, string> = new Map(),
): string {
  for (const [index, prefix] of groups)
    message = message.replaceAll(`'${standIn(placeOf[index]!)}'`, `'${prefix}*'`);
  if (placeOf.every((place, index) => place === index)) return message;
  return renamePlaces(message, source, (n) => ({ index: placeOf[n] ?? n }));
}
