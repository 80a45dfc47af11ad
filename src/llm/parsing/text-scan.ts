// Small scans over model text used by the incremental tool-call parser.
import { END_CALL, END_FN, END_PARAM, FN, OPEN_CALL, PARAM } from './tags.js';

const NEXT_TAGS = [END_PARAM, END_FN, END_CALL, OPEN_CALL, PARAM, FN];

/**
 * True while `t`, the text after a tag with its leading whitespace dropped, could still become
 * another structural tag: it is empty, a proper prefix of one, or an opener whose name has not
 * ended yet (`<function=get_wea`).
 */
export function couldBeTag(t: string): boolean {
  if (t === '' || OPENER_NAME.test(t)) return true;
  return NEXT_TAGS.some((tag) => tag.length > t.length && tag.startsWith(t));
}

/** `<function=` or `<parameter=` and a name still being written (no `>`, newline or `<` yet). */
const OPENER_NAME = /^<(function|parameter)=[^\n<>]*$/;

/** Length of the longest suffix of `s` that is a proper prefix of one of `tags`. */
export function heldSuffix(s: string, tags: string[]): number {
  const lt = s.lastIndexOf('<');
  if (lt === -1) return 0;
  const tail = s.slice(lt);
  return tags.some((t) => t.length > tail.length && t.startsWith(tail)) ? tail.length : 0;
}

// Character codes of <, t, f, / and |.
const LT = 60;
const T = 116;
const F = 102;
const SLASH = 47;
const BAR = 124;

/**
 * Index of the first '<' in `delta` that could begin a tag (followed by t, f or /, or last), else
 * -1 (`3 < 4` and `<b>` cannot).
 */
export function tagStart(delta: string): number {
  for (let i = 0; i < delta.length; i++) {
    if (delta.charCodeAt(i) !== LT) continue;
    const next = delta.charCodeAt(i + 1); // NaN after the last character
    if (next !== next || canFollowLt(next)) return i;
  }
  return -1;
}

/** True for the character codes a tag has after '<': <tool_call>, <think>, <function=, </think>, <|im_end|>. */
export function canFollowLt(code: number): boolean {
  return code === T || code === F || code === SLASH || code === BAR;
}
