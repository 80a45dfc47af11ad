/**
 * Calls written as bare JSON after prose, with no tags: "Let me check. {"name": "get_weather",
 * "parameters": {"city": "Paris"}}", as Llama 3 models write them when the server has no parser
 * for them (vLLM's own `llama3_json` reads a call only at the reply's start: the rest was spoken
 * as JSON); and Gemma's calls as code in a fence. The reply's start is BareReplyHead's. Pure: no
 * Nest import.
 */
import { bareCalls, codeCalls, jsonObjectEnd, type ParsedTextCall } from './hermes-call.js';
import { HeldSplitter, type SplitSink } from './held-splitter.js';
import { cutCalls, FENCE_OPEN, FENCE_UNDECIDED } from './bare-reply.js';
import type { ToolSchemas } from './value-typing.js';

/** A call object held at most this long while it may be one (as BareReplyHead holds one). */
const MAX_HELD = 16_384;
const KEYS = ['name', 'tool', 'tool_name', 'function', 'type', 'tool_call_id'];
/** How a call object (or a list of them) starts, quotes of either kind. */
const CALL_START = new RegExp(`^\\[?\\s*\\{\\s*["'](?:${KEYS.join('|')})["']\\s*:`);
/** The starts, without whitespace, that a text still arriving may be a part of. */
const STARTS = KEYS.flatMap((key) => [`{"${key}":`, `[{"${key}":`]);

/** Text longer than this after a `{` holds more than a call's start would (`[{"tool_name":`). */
const START_MAX = 64;

/** `rest` (the end of the text so far) may still become a call's start. */
function mayStart(rest: string): boolean {
  if (rest.length > START_MAX) return false;
  const compact = rest.replace(/\s+/g, '').replace(/'/g, '"');
  return STARTS.some((start) => start.length > compact.length && start.startsWith(compact));
}

/** The fence closing one around a call. */
const FENCE_CLOSE = /^\s*```/;
/** A fence of code that runs a tool: Gemma's `tool_code`, or Python. */
const CODE_FENCE_OPEN = /^```(?:tool_code|tool_call|python|py)[ \t]*\r?\n/i;

type Found = 'hold' | 'none' | { calls: ParsedTextCall[]; end: number };

/**
 * The calls `s` starts with, in a fence or not, and where they end; `hold` while more text may
 * still make it one (unless `final`), `none` when it is no call.
 */
function callAt(s: string, schemas: ToolSchemas, final: boolean): Found {
  const hold = final ? 'none' : 'hold';
  const code = CODE_FENCE_OPEN.exec(s)?.[0].length;
  if (code !== undefined) return codeFence(s, code, schemas, final);
  const fence = FENCE_OPEN.exec(s)?.[0].length ?? 0;
  if (fence === 0 && s.startsWith('`')) return FENCE_UNDECIDED.test(s) ? hold : 'none';
  const body = s.slice(fence);
  if (!CALL_START.test(body)) return mayStart(body) ? hold : 'none';
  const end = jsonObjectEnd(s, fence);
  if (end === -1) {
    const cut = final ? cutCalls(s.slice(fence), schemas) : undefined;
    if (cut) return { calls: cut, end: s.length };
    return s.length < MAX_HELD ? hold : 'none';
  }
  const calls = bareCalls(s.slice(fence, end), schemas);
  if (!calls) return 'none';
  if (fence === 0) return { calls, end };
  const after = s.slice(end);
  const closing = FENCE_CLOSE.exec(after)?.[0].length;
  if (closing !== undefined) return { calls, end: end + closing };
  return !final && '```'.startsWith(after.trimStart()) ? 'hold' : { calls, end };
}

/**
 * The calls of a code fence whose code starts at `code` (see codeCalls): read once the fence
 * closes (at the end of the output, what was written, the call said to be unclosed); `none` when
 * its code is anything else (an example in Python stays text).
 */
function codeFence(s: string, code: number, schemas: ToolSchemas, final: boolean): Found {
  const close = s.indexOf('```', code);
  if (close === -1 && !final) return s.length < MAX_HELD ? 'hold' : 'none';
  const calls = codeCalls(s.slice(code, close === -1 ? s.length : close), schemas);
  if (!calls) return 'none';
  if (close !== -1) return { calls, end: close + 3 };
  return { calls: calls.map((call) => ({ ...call, unclosed: true as const })), end: s.length };
}

/**
 * Takes calls written as bare JSON objects naming an active tool (see bareCalls) out of streamed
 * text, after prose too, in a Markdown fence or not, and calls written as code in a `tool_code`
 * or Python fence (Gemma's format). Only text from a `{`, `[{` or fence that may still be such a
 * call is held back, until its JSON (or fence) closes; what is no call goes on as text.
 */
export class ProseCallSplitter extends HeldSplitter {
  constructor(private readonly schemas: ToolSchemas) {
    super();
  }

  protected run(s: string, sink: SplitSink, final: boolean): void {
    this.held = '';
    for (let from = 0; ;) {
      const i = s.slice(from).search(/[[{`]/);
      if (i === -1) return s === '' ? undefined : sink.text(s);
      const at = from + i;
      const found = callAt(s.slice(at), this.schemas, final);
      if (found === 'none') {
        from = at + 1;
        continue;
      }
      if (at > 0) sink.text(s.slice(0, at));
      if (found === 'hold') {
        this.held = s.slice(at);
        return;
      }
      sink.calls(found.calls);
      s = s.slice(at + found.end);
      from = 0;
    }
  }
}
