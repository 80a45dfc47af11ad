import { jsonrepair } from 'jsonrepair';

export interface ParsedTextCall {
  name: string;
  args: Record<string, unknown>;
  /** Arguments as JSON text; for arguments that are not an object, the value as written. */
  raw: string;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Parses the body of a Hermes block (`{"name":…,"arguments":…}`); `undefined` when it is not one. */
export function parseHermesBody(body: string): ParsedTextCall | undefined {
  const parsed = tryJson(body.trim());
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const {
    name,
    arguments: args,
    parameters,
  } = parsed as { name?: unknown; arguments?: unknown; parameters?: unknown };
  if (typeof name !== 'string' || name === '') return undefined;
  return callFrom(name, args ?? parameters ?? {});
}

/** Normalises arguments given as an object, a JSON string, or anything else. */
export function callFrom(name: string, args: unknown): ParsedTextCall {
  let value = args;
  if (typeof value === 'string') {
    const text = value;
    if (text.trim() === '') value = {};
    else {
      value = tryJson(text);
      if (value === undefined) {
        try {
          value = JSON.parse(jsonrepair(text));
        } catch {
          value = undefined;
        }
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return { name, args: {}, raw: text };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { name, args: {}, raw: JSON.stringify(value) };
  }
  return { name, args: value as Record<string, unknown>, raw: JSON.stringify(value) };
}
