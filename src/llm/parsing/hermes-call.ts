import { jsonrepair } from 'jsonrepair';
import { parseJson } from './json.js';
import { parsePythonicCalls } from './python-literal.js';
import type { ToolSchemas } from './qwen-xml-call.js';
import { END_CALL, END_FN, NAMED_FN } from './tags.js';

export interface ParsedTextCall {
  name: string;
  args: Record<string, unknown>;
  /** Arguments as JSON text; for arguments that are not an object, the value as written. */
  raw: string;
}

/** JSON, or what jsonrepair makes of it (Python-style quotes and constants, trailing commas). */
function tryTolerant(text: string): unknown {
  const value = parseJson(text) ?? parseJson(repeatedObject(text));
  if (value !== undefined) return value;
  try {
    return JSON.parse(jsonrepair(text));
  } catch {
    return undefined;
  }
}

/**
 * The object of arguments sent twice or more in a row (`{"a":1}{"a":1}`, from a server or proxy
 * that repeats the whole arguments in a later fragment); '' when the text is not that.
 */
function repeatedObject(text: string): string {
  const trimmed = text.trim();
  const end = jsonObjectEnd(trimmed, 0);
  if (end <= 0 || end === trimmed.length) return '';
  const first = trimmed.slice(0, end);
  const rest = trimmed.slice(end).replace(/\s+/g, '');
  const compact = first.replace(/\s+/g, '');
  return rest.length % compact.length === 0 && rest === compact.repeat(rest.length / compact.length)
    ? first
    : '';
}

/**
 * Parses the body of a Hermes block (`{"name":…,"arguments":…}`, or the Python-style dict small
 * models write); `undefined` when it is not one.
 */
export function parseHermesBody(body: string): ParsedTextCall | undefined {
  const parsed = tryTolerant(body.trim());
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
      value = tryTolerant(text);
      // Encoded twice (a JSON string holding the JSON object), as some servers send it.
      if (typeof value === 'string') value = parseJson(value) ?? value;
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return { name, args: {}, raw: text };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { name, args: {}, raw: JSON.stringify(value) };
  }
  return { name, args: value as Record<string, unknown>, raw: JSON.stringify(value) };
}

/** `<function>NAME</function>` and the whitespace after it: a call's name given as a tag. */
const NAME_TAG = /^<function>([^<>\n]+)<\/function>\s*/;

/**
 * Whether `rest`, the text after `<tool_call>` and its whitespace, is the name-tag variant of a
 * Hermes block seen from some models (Qwen3.6, Gemma 3 quantised):
 * `<tool_call><function>NAME</function>{arguments}</tool_call>`. `wait` while it cannot tell yet.
 */
export function nameTagStart(rest: string, final: boolean): 'yes' | 'no' | 'wait' {
  const m = NAME_TAG.exec(rest);
  if (m) {
    const next = rest.slice(m[0].length);
    if (next.startsWith('{') || next.startsWith(END_CALL)) return 'yes';
    if (END_CALL.startsWith(next)) return final ? 'yes' : 'wait';
    return 'no';
  }
  if (final) return 'no';
  if (NAMED_FN.startsWith(rest)) return 'wait';
  if (!rest.startsWith(NAMED_FN)) return 'no';
  const after = rest.slice(NAMED_FN.length);
  const lt = after.indexOf('<');
  if (lt === -1) return /[>\n]/.test(after) ? 'no' : 'wait';
  return lt > 0 && END_FN.startsWith(after.slice(lt)) ? 'wait' : 'no';
}

/**
 * The calls of a reply that is nothing but JSON, with no tags: one call object or an array of
 * them, each naming an active tool, with `arguments` (or Llama's `parameters`); or a Python list
 * of calls (Llama's "pythonic" format). Some models write that when the server has no parser for
 * them (Llama 3 and 4) or drift to it (Qwen3.6). `undefined` when the text is anything else.
 */
export function bareCalls(text: string, schemas: ToolSchemas): ParsedTextCall[] | undefined {
  const pythonic = parsePythonicCalls(text);
  const value = pythonic?.map((c) => ({ name: c.name, arguments: c.args })) ?? tryTolerant(text);
  const items: unknown[] = Array.isArray(value) ? value : [value];
  if (items.length === 0) return undefined;
  const calls: ParsedTextCall[] = [];
  for (const item of items) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { name, arguments: args, parameters } = item as Record<string, unknown>;
    if (typeof name !== 'string' || !schemas.has(name)) return undefined;
    if (args === undefined && parameters === undefined) return undefined;
    calls.push(callFrom(name, args ?? parameters));
  }
  return calls;
}

/**
 * A Hermes block at the start of `buf` (`<tool_call>` + one JSON object, whose strings may hold
 * any text, + `</tool_call>`; or the name-tag variant): where it ends and its call (none when the
 * JSON is not a call, or is cut off at the end of the output). `undefined` while more input could
 * change the outcome.
 */
export function hermesBlock(
  buf: string,
  final: boolean,
): { end: number; call?: ParsedTextCall } | undefined {
  const opener = /^<tool_call>\s*/.exec(buf)?.[0].length ?? 0;
  const named = NAME_TAG.exec(buf.slice(opener));
  const start = named ? opener + named[0].length : buf.indexOf('{');
  if (named && buf[start] !== '{') {
    // A name and no arguments: `</tool_call>` (or the end of the output) closes the call.
    if (buf.startsWith(END_CALL, start))
      return { end: start + END_CALL.length, call: callFrom(named[1]!.trim(), {}) };
    return final ? { end: buf.length, call: callFrom(named[1]!.trim(), {}) } : undefined;
  }
  const read = (json: string) => (named ? callFrom(named[1]!.trim(), json) : parseHermesBody(json));
  const jsonEnd = jsonObjectEnd(buf, start);
  if (jsonEnd === -1) {
    // Unbalanced JSON (a brace left out, a string left open) that `</tool_call>` closes: the
    // block is what jsonrepair makes of it, and what follows is read on. A closer inside a
    // string may be text of a value until the output ends; one outside any string cannot.
    const close = final ? buf.indexOf(END_CALL, start) : closerOutsideString(buf, start);
    if (close !== -1) return { end: close + END_CALL.length, call: read(buf.slice(start, close)) };
    return final ? { end: buf.length } : undefined;
  }
  let k = jsonEnd;
  while (k < buf.length && /\s/.test(buf[k]!)) k++;
  const rest = buf.slice(k);
  let end: number;
  if (rest.startsWith(END_CALL)) end = k + END_CALL.length;
  else if (!final && END_CALL.startsWith(rest)) return undefined;
  else end = jsonEnd; // no closing tag: the call ends with its JSON
  return { end, call: read(buf.slice(start, jsonEnd)) };
}

/**
 * Index just after the JSON object (or array) starting at `start` (strings and escapes
 * respected), or -1.
 */
export function jsonObjectEnd(s: string, start: number): number {
  return walkJson(s, start);
}

/** Index of the first `</tool_call>` after `start` that is outside any JSON string, or -1. */
function closerOutsideString(s: string, start: number): number {
  return walkJson(s, start, END_CALL);
}

/**
 * Walks the JSON at `start`, strings and escapes respected: without `closer`, to just after the
 * object or array closes; with it, to the first `closer` outside any string. -1 when not met.
 */
function walkJson(s: string, start: number, closer?: string): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (closer !== undefined) {
      if (c === '<' && s.startsWith(closer, i)) return i;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}
