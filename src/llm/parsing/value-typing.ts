import { parseJsonExact } from './json.js';
import { parsePythonLiteral } from './python-literal.js';

/** JSON Schema of one parameter, as far as typing a raw XML value needs it. */
export type ParamSchema = Record<string, unknown> | undefined;

function typesOf(schema: Record<string, unknown>): string[] {
  const t = schema.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  const branches = [schema.anyOf, schema.oneOf, schema.allOf].find(Array.isArray) as
    unknown[] | undefined;
  if (branches) {
    return branches.flatMap((b) =>
      typeof b === 'object' && b !== null ? typesOf(b as Record<string, unknown>) : [],
    );
  }
  // No type, only the values allowed: theirs (vLLM takes every such parameter for a string, so
  // an enum of numbers would come out as strings that are not in it).
  const allowed = Array.isArray(schema.enum)
    ? schema.enum
    : 'const' in schema
      ? [schema.const]
      : [];
  return [...new Set(allowed.map(jsonTypeOf))];
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'number' ? 'number' : typeof value;
}

function jsonOrLiteral(raw: string): { ok: boolean; value: unknown } {
  const value = parseJsonExact(raw) ?? parsePythonLiteral(raw);
  return { ok: value !== undefined, value };
}

const isNullText = (raw: string) => /^(null|none)$/i.test(raw.trim());

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'null';

/**
 * The JSON Schema type a parameter's type name stands for, with the other names vLLM's
 * Qwen3-Coder parser types (`str`, `int64`, `float`, `double`, `bool`, `dict`, `list`, …);
 * undefined for a name it does not know.
 */
export function canonicalType(name: string): JsonType | undefined {
  const t = name.toLowerCase();
  if (t === 'null') return 'null';
  if (/^(string|str|text|varchar|char|enum)$/.test(t)) return 'string';
  if (/^(int|uint|long|short|unsigned)/.test(t)) return 'integer';
  if (/^(num|float|double)/.test(t)) return 'number';
  if (/^(boolean|bool|binary)$/.test(t)) return 'boolean';
  if (/^(object|dict)/.test(t)) return 'object';
  if (/^(array|arr|list)/.test(t)) return 'array';
  return undefined;
}

/**
 * Types one raw parameter value from the tool's JSON Schema, following current vLLM
 * (fixtures/qwen/NOTES.md §4): strings stay strings, numbers and booleans are converted,
 * objects and arrays are JSON or Python literals, `anyOf`/type lists use the first non-null
 * type. Undeclared parameters stay strings.
 */
export function typeValue(raw: string, schema: ParamSchema): unknown {
  if (!schema) return raw;
  const types = typesOf(schema).map((t) => t.toLowerCase());
  const nullable = types.includes('null');
  const type = types.find((t) => t !== 'null');
  const kind = type === undefined ? undefined : canonicalType(type);
  if (type === undefined) {
    if (nullable && isNullText(raw)) return null;
    const parsed = jsonOrLiteral(raw.trim());
    return parsed.ok ? parsed.value : raw;
  }
  if (kind === 'string') {
    return nullable && isNullText(raw) ? null : raw;
  }
  if (isNullText(raw)) return null;
  const text = raw.trim();
  if (kind === 'integer') {
    return /^[+-]?\d+$/.test(text) ? Number(text) : raw;
  }
  if (kind === 'number') {
    const n = Number(text);
    return text !== '' && Number.isFinite(n) ? n : raw;
  }
  if (kind === 'boolean') return text.toLowerCase() === 'true';
  if (kind === 'object' || kind === 'array') {
    const parsed = jsonOrLiteral(text);
    if (!parsed.ok) return raw;
    if (typeof parsed.value === 'string') {
      const again = jsonOrLiteral(parsed.value);
      return again.ok ? again.value : parsed.value;
    }
    return parsed.value;
  }
  const parsed = jsonOrLiteral(text);
  return parsed.ok ? parsed.value : raw;
}

/** Parameter schemas per function name, from the active tools. */
export type ToolSchemas = ReadonlyMap<string, Record<string, unknown> | undefined>;
