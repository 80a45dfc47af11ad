/** What a tag at some position becomes: the text that replaces the markup up to `end`. */
export interface TagMend {
  text: string;
  end: number;
}

/**
 * Rewrites markup in streamed text, at each `<`: what a subclass's `mend` decides, holding back
 * the text from a tag still undecided (`wait`) until more arrives or the output ends.
 */
export abstract class TagRewriter<M extends TagMend = TagMend> {
  private held = '';

  /** The text that is certain now, rewritten. */
  push(content: string): string {
    if (this.held === '' && !content.includes('<')) return content;
    return this.run(this.held + content, false);
  }

  /** End of output: whatever was held. */
  end(): string {
    return this.held === '' ? '' : this.run(this.held, true);
  }

  /** What the tag at `i` becomes; `wait` while that is undecided; undefined to leave it. */
  protected abstract mend(s: string, i: number, final: boolean): M | 'wait' | undefined;

  /** A mend is applied (after the text before it has gone out). */
  protected applied?(mend: M): void;

  private run(s: string, final: boolean): string {
    this.held = '';
    let out = '';
    let from = 0;
    for (let i = s.indexOf('<'); i !== -1; i = s.indexOf('<', i + 1)) {
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
}
