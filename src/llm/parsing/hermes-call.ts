import { jsonrepair } from 'jsonrepair';
import { END_CALL } from './tags.js';

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

/**
 * A Hermes block at the start of `buf` (`<tool_call>` + one JSON object, whose strings may hold
 * any text, + `</tool_call>`): where it ends and its call (none when the JSON is not a call, or
 * is cut off at the end of the output). `undefined` while more input could change the outcome.
 */
export function hermesBlock(
  buf: string,
  final: boolean,
): { end: number; call?: ParsedTextCall } | undefined {
  const start = buf.indexOf('{');
  const jsonEnd = jsonObjectEnd(buf, start);
  if (jsonEnd === -1) return final ? { end: buf.length } : undefined;
  let k = jsonEnd;
  while (k < buf.length && /\s/.test(buf[k]!)) k++;
  const rest = buf.slice(k);
  let end: number;
  if (rest.startsWith(END_CALL)) end = k + END_CALL.length;
  else if (!final && END_CALL.startsWith(rest)) return undefined;
  else end = jsonEnd; // no closing tag: the call ends with its JSON
  return { end, call: parseHermesBody(buf.slice(start, jsonEnd)) };
}

/** Index just after the JSON object starting at `start` (strings and escapes respected), or -1. */
function jsonObjectEnd(s: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}
