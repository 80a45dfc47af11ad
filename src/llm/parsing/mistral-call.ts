import { bareCalls, callFrom, jsonObjectEnd, type ParsedTextCall } from './hermes-call.js';
import type { ToolSchemas } from './value-typing.js';
import { HeldSplitter, type SplitSink } from './held-splitter.js';

// Mistral's calls, met in the text when the server runs without Mistral's tool parser:
//   [TOOL_CALLS][{"name": …, "arguments": {…}}]     tokenizers before v11
//   [TOOL_CALLS]NAME[ARGS]{…}                        v11 on, once per call ([CALL_ID]id may
//                                                    come before [ARGS])
// and, with the control tokens skipped from the text (vLLM's default), NAME{…}; and Kimi K2's
// calls with its special tokens skipped: functions.NAME:0{…}.

export const TOOL_CALLS = '[TOOL_CALLS]';
const ARGS = '[ARGS]';
const CALL_ID = /^\[CALL_ID\][A-Za-z0-9]*/;
const NAME = /^[A-Za-z_][\w.-]*/;
/** Kimi K2's call id once its special tokens are skipped: `functions.NAME:INDEX` before `{…}`. */
const KIMI_ID = /^functions\.([A-Za-z_][\w.-]*?):\d+\s*(?=\{)/;
const KIMI_PREFIX = 'functions.';
/** Kimi's id still arriving: the name so far, and the index so far once `:` is written. */
const KIMI_PARTIAL = /^functions\.([\w.-]*?)(?::(\d*))?\s*$/;

interface Found {
  calls: ParsedTextCall[];
  end: number;
}

/**
 * Mistral's calls at the start of `text`, one after another: where they end, `wait` while more
 * input could still change that, or undefined when `text` starts with no such call. Names must
 * be active tools'. At the end of the output (`final`), a call cut off in its arguments keeps
 * what can be repaired of them, and a name with nothing after it is a call without arguments
 * (as vLLM reads them).
 */
export function mistralCalls(
  text: string,
  schemas: ToolSchemas,
  final: boolean,
): Found | 'wait' | undefined {
  const calls: ParsedTextCall[] = [];
  for (let i = 0; ;) {
    const next = nextCall(text, i, schemas, final);
    if (next === 'wait' && !final) return 'wait';
    if (next === 'wait' || next === undefined)
      return calls.length > 0 ? { calls, end: i } : undefined;
    calls.push(...next.calls);
    i = next.end;
  }
}

/** The call (or list of calls) at `i`, after whitespace and `[TOOL_CALLS]`. */
function nextCall(
  text: string,
  i: number,
  schemas: ToolSchemas,
  final: boolean,
): Found | 'wait' | undefined {
  let j = skipWs(text, i);
  if (j === text.length) return 'wait';
  const marked = text.startsWith(TOOL_CALLS, j);
  if (!marked && TOOL_CALLS.startsWith(text.slice(j))) return 'wait';
  if (marked) j = skipWs(text, j + TOOL_CALLS.length);
  if (j === text.length) return 'wait';
  if (marked && text[j] === '[') {
    const end = jsonObjectEnd(text, j);
    if (end === -1) return 'wait';
    const calls = bareCalls(text.slice(j, end), schemas);
    return calls ? { calls, end } : undefined;
  }
  return named(text, j, schemas, final);
}

/**
 * An active tool's name, `[CALL_ID]id` and `[ARGS]` if written, then a JSON object. The id the
 * model wrote (Kimi's `functions.NAME:0`, Mistral's `[CALL_ID]`) is the call's: their templates
 * show a past call and its result by it.
 */
function named(
  text: string,
  i: number,
  schemas: ToolSchemas,
  final: boolean,
): Found | 'wait' | undefined {
  const kimi = KIMI_ID.exec(text.slice(i));
  if (kimi && schemas.has(kimi[1]!))
    return withId(json(text, i + kimi[0].length, kimi[1]!, final), kimi[0].trim());
  if (!final && kimiArriving(text.slice(i), schemas)) return 'wait';
  const name = NAME.exec(text.slice(i))?.[0];
  if (name === undefined) return undefined;
  const cutOff = (args: string): Found | 'wait' =>
    final ? { calls: [{ ...callFrom(name, args), unclosed: true }], end: text.length } : 'wait';
  let j = i + name.length;
  if (j === text.length) {
    if (schemas.has(name)) return cutOff('{}');
    return [...schemas.keys()].some((n) => n.startsWith(name)) ? 'wait' : undefined;
  }
  if (!schemas.has(name)) return undefined;
  const id = CALL_ID.exec(text.slice(j));
  if (id) j += id[0].length;
  else if (isPrefixAtEnd(text, j, '[CALL_ID]')) return cutOff('{}');
  if (text.startsWith(ARGS, j)) j += ARGS.length;
  else if (isPrefixAtEnd(text, j, ARGS)) return cutOff('{}');
  j = skipWs(text, j);
  if (j === text.length) return cutOff('{}');
  return withId(json(text, j, name, final), id?.[0].slice('[CALL_ID]'.length));
}

/** The call found with the id the model wrote for it, if any. */
function withId(found: Found | 'wait' | undefined, id: string | undefined) {
  if (!id || found === undefined || found === 'wait') return found;
  return { ...found, calls: found.calls.map((call) => ({ ...call, id })) };
}

/** Whether `rest` may still become Kimi's `functions.NAME:INDEX` for an active tool. */
function kimiArriving(rest: string, schemas: ToolSchemas): boolean {
  if (KIMI_PREFIX.startsWith(rest)) return true;
  const partial = KIMI_PARTIAL.exec(rest);
  if (!partial) return false;
  const name = partial[1]!;
  if (partial[2] !== undefined) return schemas.has(name);
  return [...schemas.keys()].some((n) => n.startsWith(name));
}

/** The JSON arguments at `j` of a call to `name`. */
function json(text: string, j: number, name: string, final: boolean): Found | 'wait' | undefined {
  if (text[j] !== '{') return undefined;
  const end = jsonObjectEnd(text, j);
  if (end !== -1) return { calls: [callFrom(name, text.slice(j, end))], end };
  if (!final) return 'wait';
  return { calls: [{ ...callFrom(name, text.slice(j)), unclosed: true }], end: text.length };
}

/** `text` from `i` on is a proper, non-empty prefix of `token`: the token may be arriving. */
function isPrefixAtEnd(text: string, i: number, token: string): boolean {
  const rest = text.slice(i);
  return rest !== '' && rest.length < token.length && token.startsWith(rest);
}

function skipWs(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

/**
 * Takes `[TOOL_CALLS]` calls out of streamed content wherever they start (after prose too, as
 * v11 models write them), before the content goes on as text. Only a suffix that may be the
 * token arriving (`[`, `[TOOL_`) is held back, and a call until its JSON closes; a token that no
 * call follows is dropped as markup.
 */
export class MistralCallSplitter extends HeldSplitter {
  // Held: a suffix that may be the token arriving, or a call (from its token) still incomplete.
  constructor(private readonly schemas: ToolSchemas) {
    super();
  }

  protected run(s: string, sink: SplitSink, final: boolean): void {
    this.held = '';
    for (;;) {
      const at = s.indexOf(TOOL_CALLS);
      if (at === -1) {
        const keep = final ? 0 : tokenPrefixAtEnd(s);
        if (s.length > keep) sink.text(s.slice(0, s.length - keep));
        this.held = s.slice(s.length - keep);
        return;
      }
      if (at > 0) sink.text(s.slice(0, at));
      s = s.slice(at);
      const found = mistralCalls(s, this.schemas, final);
      if (found === 'wait') {
        this.held = s; // starts with the token: found again at the next push
        return;
      }
      if (found === undefined) {
        s = s.slice(TOOL_CALLS.length); // the token alone: markup, not text
        continue;
      }
      sink.calls(found.calls);
      s = s.slice(found.end);
      if (s === '') return;
    }
  }
}

/** Length of the longest suffix of `s` that is a proper prefix of `[TOOL_CALLS]`. */
function tokenPrefixAtEnd(s: string): number {
  const from = s.lastIndexOf('[', s.length - 1);
  if (from === -1 || s.length - from >= TOOL_CALLS.length) return 0;
  return TOOL_CALLS.startsWith(s.slice(from)) ? s.length - from : 0;
}
