/**
 * Calls written as bare JSON after prose, with no tags: "Let me check. {"name": "get_weather",
 * "parameters": {"city": "Paris"}}", as Llama 3 models write them when the server has no parser
 * for them (vLLM's own `llama3_json` reads a call only at the reply's start: the rest was spoken
 * as JSON). The reply's start is BareReplyHead's. Pure: no Nest import.
 */
import { bareCalls, jsonObjectEnd } from './hermes-call.js';
import { HeldSplitter, type SplitSink } from './held-splitter.js';
import type { ToolSchemas } from './value-typing.js';

/** A call object held at most this long while it may be one (as BareReplyHead holds one). */
const MAX_HELD = 16_384;
const KEYS = ['name', 'tool', 'tool_name', 'function', 'type'];
/** How a call object (or a list of them) starts, quotes of either kind. */
const CALL_START = new RegExp(`^\\[?\\s*\\{\\s*["'](?:${KEYS.join('|')})["']\\s*:`);
/** The starts, without whitespace, that a text still arriving may be a part of. */
const STARTS = KEYS.flatMap((key) => [`{"${key}":`, `[{"${key}":`]);

/** `rest` (the end of the text so far) may still become a call's start. */
function mayStart(rest: string): boolean {
  const compact = rest.replace(/\s+/g, '').replace(/'/g, '"');
  return STARTS.some((start) => start.length > compact.length && start.startsWith(compact));
}

/** Where the first text that is, or may still become, a call's start begins; -1 if none. */
function candidateAt(s: string): number {
  for (let i = s.search(/[[{]/); i !== -1;) {
    const rest = s.slice(i);
    if (CALL_START.test(rest) || mayStart(rest)) return i;
    const next = s.slice(i + 1).search(/[[{]/);
    i = next === -1 ? -1 : i + 1 + next;
  }
  return -1;
}

/**
 * Takes calls written as bare JSON objects naming an active tool (see bareCalls) out of streamed
 * text, after prose too. Only text from a `{` (or `[{`) that may still be such a call is held
 * back, until its JSON closes; JSON that is no call goes on as text.
 */
export class ProseCallSplitter extends HeldSplitter {
  constructor(private readonly schemas: ToolSchemas) {
    super();
  }

  protected run(s: string, sink: SplitSink, final: boolean): void {
    this.held = '';
    for (;;) {
      const at = candidateAt(s);
      if (at === -1) return s === '' ? undefined : sink.text(s);
      if (at > 0) sink.text(s.slice(0, at));
      s = s.slice(at);
      const end = CALL_START.test(s) ? jsonObjectEnd(s, 0) : -1;
      if (end === -1 && !final && s.length < MAX_HELD) {
        this.held = s;
        return;
      }
      const calls = end === -1 ? undefined : bareCalls(s.slice(0, end), this.schemas);
      if (!calls) {
        // No call: its first character is text, and what follows is looked at again.
        sink.text(s[0]!);
        s = s.slice(1);
        continue;
      }
      sink.calls(calls);
      s = s.slice(end);
    }
  }
}
