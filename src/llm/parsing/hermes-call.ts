import { jsonrepair } from 'jsonrepair';
import { MAX_JSON_DEPTH, nestedDeeper } from '../../common/nesting.js';
import { parseJsonExact } from './json.js';
import { parseCallStatements, parsePythonicCalls, type PythonCall } from './python-literal.js';
import type { ToolSchemas } from './value-typing.js';
import { meantTool } from './tool-names.js';
import { END_CALL, END_FN, NAMED_FN } from './tags.js';

export interface ParsedTextCall {
  name: string;
  args: Record<string, unknown>;
  /** Arguments as JSON text; for arguments that are not an object, the value as written. */
  raw: string;
  /** The output ended inside the call (an XML call's closing tags never came). */
  unclosed?: true;
  /**
   * The id the model wrote for the call (Kimi's `functions.NAME:0`, its template's only place for
   * the call's name): kept, when no other call has it, so that the next request shows the model
   * the call as it wrote it.
   */
  id?: string;
}

/** A call id as a model writes one: a word with dots, colons and dashes, not too long. */
const WRITTEN_ID = /^[\w.:-]{1,64}$/;

/** Arguments nested deeper than MAX_JSON_DEPTH make no call's (the model hears so). */
const TOO_DEEP = `(arguments nested more than ${MAX_JSON_DEPTH} levels deep)`;

/** A value as JSON text, or the words saying it is nested too deep to be arguments. */
export function argumentsText(value: unknown): string {
  return nestedDeeper(value, MAX_JSON_DEPTH) ? TOO_DEEP : JSON.stringify(value);
}

/** A call of arguments parsed into an object, with their JSON text (invalid when too deep). */
export function parsedCall(name: string, args: Record<string, unknown>): ParsedTextCall {
  const raw = argumentsText(args);
  return { name, args: raw === TOO_DEEP ? {} : args, raw };
}

/** JSON, or what jsonrepair makes of it (Python-style quotes and constants, trailing commas). */
function tryTolerant(text: string): unknown {
  const value = parseJsonExact(text) ?? parseJsonExact(repeatedObject(text));
  if (value !== undefined) return value;
  try {
    return parseJsonExact(jsonrepair(text));
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
 * The calls in the body of a Hermes block: one call object (`{"name":…,"arguments":…}`, or the
 * Python-style dict small models write) or an array of them; none when it is not that. Shapes
 * seen besides: Llama's `parameters`, OpenAI's `{"type":"function","function":{…}}`, and the
 * arguments flattened beside the name (`{"name":"get_weather","city":"Paris"}`), unless `flat`
 * is false (JSON cut off and repaired: a key cut there would be taken for an argument).
 */
export function hermesCalls(body: string, { flat = true } = {}): ParsedTextCall[] {
  const parsed = tryTolerant(body.trim());
  const calls: ParsedTextCall[] = [];
  for (const entry of Array.isArray(parsed) ? parsed : [parsed]) {
    const call = namedCall(entry);
    if (!call || call.name === '' || (call.given === undefined && !flat)) continue;
    const parsedCall = callFrom(call.name, call.given ?? flatArguments(call));
    const id = (entry as { id?: unknown }).id;
    calls.push(typeof id === 'string' && WRITTEN_ID.test(id) ? { ...parsedCall, id } : parsedCall);
  }
  return calls;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Normalises arguments given as an object, a JSON string, or anything else. */
export function callFrom(name: string, args: unknown): ParsedTextCall {
  let value = args;
  if (typeof value === 'string') {
    const text = value;
    if (text.trim() === '') value = {};
    else {
      value = tryTolerant(text);
      // Encoded twice (a JSON string holding the JSON object), as some servers send it.
      if (typeof value === 'string') value = parseJsonExact(value) ?? value;
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return { name, args: {}, raw: text };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { name, args: {}, raw: argumentsText(value) };
  }
  return parsedCall(name, value as Record<string, unknown>);
}

/** `<function>NAME</function>` and the whitespace after it: a call's name given as a tag. */
export const NAME_TAG = /^<function>([^<>\n]+)<\/function>\s*/;

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
 * them, each naming an active tool (see meantTool), with `arguments` (or another name for them,
 * see namedCall, or arguments beside the name that are all parameters the tool declares); or a
 * Python list of calls (Llama's "pythonic" format). Some models write that when the server has no
 * parser for them (Llama 3 and 4) or drift to it (Qwen3.6). `undefined` when the text is anything
 * else.
 */
export function bareCalls(text: string, schemas: ToolSchemas): ParsedTextCall[] | undefined {
  const pythonic = parsePythonicCalls(text);
  const value = pythonic ? asCallObjects(pythonic) : tryTolerant(text);
  return namedCalls(Array.isArray(value) ? value : [value], schemas);
}

/**
 * The calls of code the model meant to run a tool with (see parseCallStatements), each naming an
 * active tool; `undefined` when the code is anything else.
 */
export function codeCalls(code: string, schemas: ToolSchemas): ParsedTextCall[] | undefined {
  const statements = parseCallStatements(code);
  return statements && namedCalls(asCallObjects(statements), schemas);
}

const asCallObjects = (calls: PythonCall[]) =>
  calls.map((c) => ({ name: c.name, arguments: c.args }));

/** Call objects (see namedCall), each naming an active tool; else `undefined`. */
function namedCalls(items: unknown[], schemas: ToolSchemas): ParsedTextCall[] | undefined {
  if (items.length === 0) return undefined;
  const calls: ParsedTextCall[] = [];
  for (const item of items) {
    const call = namedCall(item);
    if (!call) return undefined;
    const name = meantTool(call.name, schemas);
    if (!schemas.has(name)) return undefined;
    const given = call.given ?? declaredOnly(flatArguments(call), schemas.get(name));
    if (given === undefined) return undefined;
    calls.push(callFrom(name, given));
  }
  return calls;
}

interface NamedCall {
  name: string;
  /** The key the name was under. */
  nameKey: string;
  /** The arguments, when under a key of their own. */
  given: unknown;
  item: Record<string, unknown>;
}
const NAME_KEYS = ['name', 'tool', 'tool_name'];
const ARGUMENT_KEYS = ['arguments', 'parameters', 'tool_input', 'args', 'input'];

/**
 * A call object's name and arguments: `{"name", "arguments"}` (or Llama's `parameters`,
 * LangChain's `tool` and `tool_input`, `args`, `input`), or that inside `function`, as the API's
 * own `{"type":"function","function":{…}}` has it; or the name as the one key of the object,
 * the arguments its value (`{"get_weather": {"city": "Paris"}}`). Shapes small models write.
 */
function namedCall(entry: unknown): NamedCall | undefined {
  if (!isObject(entry)) return undefined;
  const item = isObject(entry.function) ? entry.function : entry;
  const nameKey = NAME_KEYS.find((k) => typeof item[k] === 'string');
  if (nameKey === undefined) {
    const keys = Object.keys(item);
    const only = keys.length === 1 ? keys[0]! : undefined;
    if (only === undefined || !isObject(item[only]) || ARGUMENT_KEYS.includes(only))
      return undefined;
    return { name: only, nameKey: only, given: item[only], item };
  }
  const given = ARGUMENT_KEYS.map((k) => item[k]).find((v) => v !== undefined);
  return { name: item[nameKey] as string, nameKey, given, item };
}

/** The keys of a call object beside its name (arguments written flat). */
function flatArguments({ item, nameKey }: NamedCall): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(item).filter(([k]) => !['name', 'type', 'id', nameKey].includes(k)),
  );
}

/**
 * Flat arguments, when every key is a parameter the tool declares (and there is one at least):
 * a bare reply `{"name":"read_file","path":"/etc/hosts"}` is a call (gpt-oss has been seen to
 * write that), while JSON that merely has a `name` is not.
 */
function declaredOnly(
  flat: Record<string, unknown>,
  schema: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const properties = schema?.properties;
  const keys = Object.keys(flat);
  if (keys.length === 0 || typeof properties !== 'object' || properties === null) return undefined;
  return keys.every((k) => Object.hasOwn(properties, k)) ? flat : undefined;
}

/**
 * Index just after the JSON object (or array) starting at `start` (strings and escapes
 * respected), or -1.
 */
export function jsonObjectEnd(s: string, start: number): number {
  return walkJson(s, start);
}

/** Index of the first `closer` after `start` that is outside any JSON string, or -1. */
export function closerOutsideString(s: string, start: number, closer = END_CALL): number {
  return walkJson(s, start, closer);
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
