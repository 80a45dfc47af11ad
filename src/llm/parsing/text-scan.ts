// Small scans over model text used by the incremental tool-call parser.

const NEXT_TAGS = [
  '</parameter>',
  '</function>',
  '</tool_call>',
  '<tool_call>',
  '<parameter=',
  '<function=',
];

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
