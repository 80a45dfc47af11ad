/** What a tag at some position becomes: the text that replaces the markup up to `end`. */
export interface TagMend {
  text: string;
  end: number;
}

/**
 * Rewrites markup in streamed text, at each of the characters that can start it (`triggers`,
 * `<` by default): what a subclass's `mend` decides, holding back the text from a tag still
 * undecided (`wait`) until more arrives or the output ends.
 */
export abstract class TagRewriter<M extends TagMend = TagMend> {
  private held = '';

  /** Any of the triggers: one search of a delta for all of them. */
  private readonly anyTrigger: RegExp;

  constructor(private readonly triggers: readonly string[] = ['<']) {
    this.anyTrigger = new RegExp(`[${triggers.join('').replace(/[\\\]^-]/g, '\\$&')}]`);
  }

  /** The text that is certain now, rewritten. */
  push(content: string): string {
    if (this.held === '' && !this.anyTrigger.test(content)) return content;
    return this.run(this.held + content, false);
  }

  /** End of output: whatever was held. */
  end(): string {
    return this.held === '' ? '' : this.run(this.held, true);
  }

  /** What the tag at `i` becomes; `wait` while that is undecided; undefined to leave it. */
  protected abstract mend(s: string, i: number, final: boolean): M | 'wait' | undefined;

  /**
   * Which of `tokens` starts at `i`; `wait` while one may still be arriving (the text ends in
   * the middle of it); undefined when none does.
   */
  protected tokenAt<T extends string>(
    s: string,
    i: number,
    tokens: readonly T[],
    final: boolean,
  ): T | 'wait' | undefined {
    const token = tokens.find((t) => s.startsWith(t, i));
    if (token !== undefined) return token;
    const partial = (t: T) => t.length > s.length - i && t.startsWith(s.slice(i));
    return !final && tokens.some(partial) ? 'wait' : undefined;
  }

  /** A mend is applied (after the text before it has gone out). */
  protected applied?(mend: M): void;

  private run(s: string, final: boolean): string {
    this.held = '';
    let out = '';
    let from = 0;
    for (let i = this.next(s, 0); i !== -1; i = this.next(s, i + 1)) {
      const mend = this.mend(s, i, final);
      if (mend === 'wait') {
        this.held = s.slice(i);
        return out + s.slice(from, i);
      }
      if (mend === undefined) continue;
      out += s.slice(from, i) + mend.text;
      from = mend.end;
      i = mend.end - 1;
      this.applied?.(mend);
    }
    return out + s.slice(from);
  }

  /** Where the next character that can start markup is, from `from` on; -1 if none. */
  private next(s: string, from: number): number {
    let at = -1;
    for (const t of this.triggers) {
      const i = s.indexOf(t, from);
      if (i !== -1 && (at === -1 || i < at)) at = i;
    }
    return at;
  }
}
