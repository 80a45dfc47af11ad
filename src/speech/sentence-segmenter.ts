/**
 * Incremental sentence segmenter for streamed answer text (pure). `push(delta)` returns the
 * sentences that are complete, `flush()` the rest at the end of the turn. Handles
 * abbreviations, decimals (3.5), ellipses, `?!`, closing quotes and brackets, Italian/Spanish
 * punctuation (¿¡), Chinese and Japanese sentence ends (。！？, no space after them), Hindi's and
 * Arabic's, and caps a long run without a full stop by cutting at a comma or space.
 */
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'approx',
  'no',
  'inc',
  'ltd',
  'co',
  'sig',
  'sigg',
  'dott',
  'ing',
  'avv',
  'ecc',
  'pag',
  'sra',
  'srta',
  'ud',
  'uds',
  'dña',
  'pág',
  'núm',
  'p.es',
  'ca',
]);
const CLOSERS = `"'”’»)]}」』）】〉》`;
/** Sentence ends followed by a space: Latin and Cyrillic scripts, Devanagari (।), Arabic (؟ ۔). */
const TERMINATORS = '.!?…।؟۔';
/** Chinese and Japanese sentence ends, followed by the next sentence with no space. */
const CJK_TERMINATORS = '。！？｡';
const ALL_TERMINATORS = TERMINATORS + CJK_TERMINATORS;
/** Where a long run may be cut: after a comma, semicolon or colon (with its space in Latin text). */
const CUTS = [', ', '; ', ': ', '，', '、', '；', '：'];

/** After a newline: a paragraph break (a blank line, CRLF or spaces in it too) or a list item. */
const LINE_BREAK = /[ \t\r]*\n|\s*[-*•\d]/y;

/** Whether the newline before `at` ends a sentence (read in place: no copy of the rest). */
function breaksAfter(s: string, at: number): boolean {
  LINE_BREAK.lastIndex = at;
  return LINE_BREAK.test(s);
}

export class SentenceSegmenter {
  private buf = '';
  /** Nothing has been given since the start or the last flush: the next piece is a first. */
  private fresh = true;

  /**
   * `firstClauseChars`: a first piece (of the answer, or after a flush) is given at its first
   * comma, semicolon or colon once it has this many characters, rather than at its end (the
   * caller hears the answer begin sooner when the model writes slowly); 0: never.
   */
  constructor(
    private readonly maxChars = 250,
    private readonly firstClauseChars = 0,
  ) {}

  push(delta: string): string[] {
    this.buf += delta;
    return this.drain(false);
  }

  flush(): string[] {
    const out = this.drain(true);
    const rest = this.buf.trim();
    this.buf = '';
    if (rest) out.push(rest);
    this.fresh = true;
    return out;
  }

  private drain(final: boolean): string[] {
    const out: string[] = [];
    for (;;) {
      const end = this.boundary(final);
      if (end === -1) break;
      const sentence = this.buf.slice(0, end).trim();
      this.buf = this.buf.slice(end);
      if (!sentence) continue;
      out.push(sentence);
      this.fresh = false;
    }
    return out;
  }

  /** Index just after the first complete sentence, or -1. */
  private boundary(final: boolean): number {
    const s = this.buf;
    for (let i = 0; i < s.length; i++) {
      const c = s[i]!;
      if (c === '\n' && breaksAfter(s, i + 1)) return i + 1;
      if (!ALL_TERMINATORS.includes(c)) continue;
      let j = i + 1;
      while (j < s.length && (ALL_TERMINATORS.includes(s[j]!) || CLOSERS.includes(s[j]!))) j++;
      if (j >= s.length) {
        if (final) return j;
        return -1; // wait: the next character decides (decimal, abbreviation, more punctuation)
      }
      if (CJK_TERMINATORS.includes(c)) return j;
      if (!/\s/.test(s[j]!)) {
        i = j - 1;
        continue; // 3.5, e.g.x, "a.b"
      }
      if (c === '.' && this.isAbbreviation(s, i)) continue;
      return j;
    }
    if (s.length > this.maxChars) return this.cut(s);
    return this.fresh && this.firstClauseChars > 0 ? this.clause(s) : -1;
  }

  /** After the first clause mark with `firstClauseChars` before it, or -1. */
  private clause(s: string): number {
    let end = -1;
    for (const mark of CUTS) {
      const at = s.indexOf(mark, this.firstClauseChars);
      if (at !== -1 && (end === -1 || at + mark.length < end)) end = at + mark.length;
    }
    return end;
  }

  private isAbbreviation(s: string, dot: number): boolean {
    const word =
      /([\p{L}.]+)$/u.exec(s.slice(Math.max(0, dot - 12), dot))?.[1]?.toLowerCase() ?? '';
    if (ABBREVIATIONS.has(word)) return true;
    return (
      /^\p{Lu}$/u.test(s.slice(dot - 1, dot)) &&
      /(^|\s)\p{Lu}$/u.test(s.slice(Math.max(0, dot - 2), dot))
    );
  }

  /** A long run without a sentence end: cut after the last comma (or space) within the cap. */
  private cut(s: string): number {
    const head = s.slice(0, this.maxChars);
    const after = Math.max(...CUTS.map((mark) => head.lastIndexOf(mark) + mark.length));
    if (after > this.maxChars / 3) return after;
    const space = head.lastIndexOf(' ');
    return space > 0 ? space + 1 : this.maxChars;
  }
}
