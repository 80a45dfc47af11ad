/** What OpenAPI entries share as they are read: their fields checked, their documents read once. */
import { OPENAPI_SCHEMA, validateOpenApi } from '../definition-schema.js';
import { describe } from '../field-hints.js';
import { ToolDefinitionError } from '../definition-error.js';
import type { ToolDefinitionInput } from '../definition-input.js';
import { checkOperationsFields } from './openapi-operations.js';
import { isSpecUrl, readSpec, SpecContentError, specLocation } from './spec-source.js';

const OPENAPI_FIELDS = new Set(Object.keys(OPENAPI_SCHEMA.properties));

export interface ExpandOptions {
  baseDir: string;
  timeoutMs: number;
  defer?: 'unreachable' | 'unusable';
  kept?: ReadonlySet<number>;
  /** The rest of the set, when `input` is a part of it: operations it has entries for are its. */
  others?: readonly ToolDefinitionInput[];
}

/** Reads a document once per expansion (a file or a URL, see readSpec). */
export function reader(baseDir: string, timeoutMs: number) {
  const specs = new Map<string, ReturnType<typeof readSpec>>();
  return (spec: string) => {
    const path = specLocation(spec, baseDir);
    if (!specs.has(path)) specs.set(path, readSpec(path, timeoutMs));
    return { path, spec: specs.get(path)! };
  };
}

export type Read = ReturnType<typeof reader>;

/** The entry checked as OpenAPI entries are: its fields, and those that say which operations. */
export function checkEntry(def: ToolDefinitionInput, at: string): void {
  if (!validateOpenApi(def)) {
    const { field, why } = describe(validateOpenApi.errors![0]!);
    throw new ToolDefinitionError(`${at}: field '${field}' ${why}`);
  }
  for (const field of Object.keys(def))
    if (!OPENAPI_FIELDS.has(field))
      throw new ToolDefinitionError(
        `${at}: field '${field}' is not used by OpenAPI tools${field === 'url' || field === 'method' ? ": the operation gives it ('base_url' names another server)" : ''}`,
      );
  checkOperationsFields(def, at);
}

/**
 * Why an entry's document cannot be read, when its tools may be left pending for it (a document
 * at a URL, with `defer`); else throws ToolDefinitionError naming the `spec` field.
 */
export function unreadable(
  error: unknown,
  def: ToolDefinitionInput,
  path: string,
  at: string,
  place: number,
  options: ExpandOptions,
): string {
  // The first line only: a YAML parser's message goes on to quote the file.
  const why = `cannot be read as an OpenAPI document (${path}): ${(error as Error).message.split('\n')[0]}`;
  const served = error instanceof SpecContentError;
  const defer = options.kept?.has(place) ? 'unusable' : options.defer;
  if (!defer || !isSpecUrl(def.spec!) || (served && defer === 'unreachable'))
    throw new ToolDefinitionError(`${at}: field 'spec' ${why}`);
  return why;
}
