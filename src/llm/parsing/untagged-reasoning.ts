// Reasoning with no opening tag: chat templates that open `<think>` in the prompt (Qwen3.5 and
// later, the `-Thinking-2507` models) make the reply begin inside the reasoning, and a server
// without a reasoning parser sends it all as content. The parser then holds the text until
// `</think>` (or a call) shows where the reasoning ends; with neither, the text is the answer.
import { END_THINK, FN, OPEN_CALL } from './tags.js';

/** Longest tag searched for, less one: how far back a tag split across deltas can begin. */
const OVERLAP = OPEN_CALL.length - 1;

/**
 * Where the untagged reasoning at the start of `buf` ends: at `</think>`, or at a call the model
 * wrote before closing its reasoning (`<tool_call>` then `<function=` or `{`; one merely
 * mentioned goes on). The search starts at `from`; `end` is -1 while the end has not arrived,
 * and `next` is where the next search (on more input) starts.
 */
export function untaggedReasoningEnd(
  buf: string,
  from: number,
  final: boolean,
): { end: number; next: number } {
  const close = buf.indexOf(END_THINK, from);
  for (let at = buf.indexOf(OPEN_CALL, from); at !== -1; at = buf.indexOf(OPEN_CALL, at + 1)) {
    if (close !== -1 && close < at) break;
    const rest = buf.slice(at + OPEN_CALL.length).trimStart();
    if (rest.startsWith(FN) || rest.startsWith('{')) return { end: at, next: at };
    // Cannot tell yet: look at this opener again when more has arrived.
    if (!final && (rest === '' || FN.startsWith(rest))) return { end: -1, next: at };
  }
  return { end: close, next: Math.max(from, buf.length - OVERLAP) };
}
