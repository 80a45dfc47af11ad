// Small scans over model text used by the incremental tool-call parser.

/** True when `s` holds a character other than space, tab, CR or LF. */
export function hasNonSpace(s: string): boolean {
  if (s.length === 1) {
    const c = s.charCodeAt(0);
    return c !== 32 && c !== 10 && c !== 9 && c !== 13;
  }
  return /[^ \n\t\r]/.test(s);
}

/** Length of the longest suffix of `s` that is a proper prefix of one of `tags`. */
export function heldSuffix(s: string, tags: string[]): number {
  const lt = s.lastIndexOf('<');
  if (lt === -1) return 0;
  const tail = s.slice(lt);
  return tags.some((t) => t.length > tail.length && t.startsWith(tail)) ? tail.length : 0;
}
