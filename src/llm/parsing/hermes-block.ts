import {
  callFrom,
  closerOutsideString,
  hermesCalls,
  jsonObjectEnd,
  NAME_TAG,
  type ParsedTextCall,
} from './hermes-call.js';
import { END_CALL, FENCE } from './tags.js';

/** A Markdown fence that some models put around the JSON inside the block. */
const FENCE_OPEN = /^```[A-Za-z]*\s*/;

/** Closing brackets (and whitespace) left over after a call's JSON. */
const STRAYS = /^[\]}\s]*/;

const skipWs = (s: string, i: number) => {
  while (i < s.length && /\s/.test(s[i]!)) i++;
  return i;
};

/**
 * A Hermes block at the start of `buf`: `<tool_call>`, JSON whose strings may hold any text,
 * `</tool_call>`. The JSON is one call object, an array of them, or several objects in a row
 * (all read); a Markdown fence around it is dropped; the name-tag variant gives the name as
 * `<function>NAME</function>` before the arguments. Returns where the block ends and its calls
 * (none when the JSON is not a call; one cut off at the end of the output as far as it can be
 * repaired, and `unclosed`), `undefined` while more input could change the outcome.
 */
export function hermesBlock(
  buf: string,
  final: boolean,
  closer = END_CALL,
): { end: number; calls: ParsedTextCall[] } | undefined {
  const opener = /^<(?:tool_call|tools)>\s*/.exec(buf)?.[0].length ?? 0;
  const named = NAME_TAG.exec(buf.slice(opener));
  const name = named?.[1]!.trim();
  let k = named ? opener + named[0].length : opener;
  if (name !== undefined && buf[k] !== '{') {
    // A name and no arguments: `</tool_call>` (or the end of the output) closes the call.
    if (buf.startsWith(closer, k)) return { end: k + closer.length, calls: [callFrom(name, {})] };
    return final ? { end: buf.length, calls: [callFrom(name, {})] } : undefined;
  }
  const read = (json: string, flat = true) =>
    name !== undefined ? [callFrom(name, json)] : hermesCalls(json, { flat });
  k += FENCE_OPEN.exec(buf.slice(k))?.[0].length ?? 0;
  if (buf[k] !== '{' && buf[k] !== '[') {
    // No JSON at all (a block that opens with another tag, see callOpener): markup, no call.
    const close = buf.indexOf(closer, k);
    if (close !== -1) return { end: close + closer.length, calls: [] };
    return final ? { end: buf.length, calls: [] } : undefined;
  }
  const calls: ParsedTextCall[] = [];
  let end: number;
  for (;;) {
    const jsonEnd = jsonObjectEnd(buf, k);
    if (jsonEnd === -1) {
      // Unbalanced JSON (a brace left out, a string left open) that `</tool_call>` closes: the
      // block is what jsonrepair makes of it, and what follows is read on. A closer inside a
      // string may be text of a value until the output ends; one outside any string cannot.
      const close = final ? buf.indexOf(closer, k) : closerOutsideString(buf, k, closer);
      if (close !== -1)
        return { end: close + closer.length, calls: [...calls, ...read(buf.slice(k, close))] };
      // Cut off by the end of the output: what can be repaired of it, said to be unclosed (a
      // call cut at the token limit is not run, see CompletionDecoder.emitCall).
      const cut = read(buf.slice(k), false).map((call) => ({ ...call, unclosed: true as const }));
      return final ? { end: buf.length, calls: [...calls, ...cut] } : undefined;
    }
    calls.push(...read(buf.slice(k, jsonEnd)));
    end = jsonEnd;
    k = skipWs(buf, jsonEnd);
    if (buf[k] === ',') k = skipWs(buf, k + 1);
    if (buf[k] !== '{' || name !== undefined) break;
  }
  if (buf.startsWith(FENCE, k)) k = skipWs(buf, (end = k + FENCE.length));
  // Stray closing brackets before the closer (`{…}}}</tool_call>`, a brace too many) are the
  // block's, not text.
  const strays = STRAYS.exec(buf.slice(k))![0].length;
  const after = buf.slice(k + strays);
  if (after.startsWith(closer)) return { end: k + strays + closer.length, calls };
  const rest = buf.slice(k);
  if (!final && (closer.startsWith(after) || [FENCE, ','].some((t) => t.startsWith(rest))))
    return undefined;
  return { end, calls }; // no closing tag: the block ends with its JSON
}

/**
 * Whether `rest`, the text after `<tool_call>` and its whitespace, opens a JSON body (an object,
 * an array of objects, either in a Markdown fence); `wait` while it cannot tell yet.
 */
export function jsonBodyStart(rest: string, final: boolean): 'yes' | 'no' | 'wait' {
  const fence = FENCE_OPEN.exec(rest)?.[0].length ?? 0;
  const body = rest.slice(fence);
  if (body.startsWith('{') || /^\[\s*\{/.test(body)) return 'yes';
  const undecided = body === '' || /^\[\s*$/.test(body) || (fence === 0 && /^`{1,3}$/.test(body));
  return undecided && !final ? 'wait' : 'no';
}
