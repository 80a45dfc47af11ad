/* eslint-disable @typescript-eslint/only-throw-error -- INCOMPLETE is a control-flow signal thrown without a stack, for speed */

/** Thrown (as a plain value: no stack to capture) when the outcome depends on input not yet received. */
export const INCOMPLETE = { incomplete: true } as const;

const isWs = (c: string | undefined) => c === ' ' || c === '\n' || c === '\t' || c === '\r';

/**
 * Scanning primitives over model output that may still be arriving (`final` false): an answer
 * that depends on text not yet received throws INCOMPLETE.
 */
export abstract class XmlScanner {
  constructor(
    protected readonly s: string,
    protected readonly final: boolean,
  ) {}

  /** The output ended before what was being read closed (see atEnd). */
  ranOut = false;

  /** At the end of the input: `value` when the output is over, else wait for more. */
  protected atEnd<T>(value: T): T {
    if (!this.final) throw INCOMPLETE;
    this.ranOut = true;
    return value;
  }

  protected skipWs(i: number): number {
    while (i < this.s.length && isWs(this.s[i])) i++;
    return i;
  }

  /** First index of any of `tags` starting at or after `from` (and, with `to`, ending by `to`). */
  protected firstOf(tags: string[], from: number, to?: number): number {
    const text = to === undefined ? this.s : this.s.slice(0, to);
    let best = -1;
    for (const t of tags) {
      const i = text.indexOf(t, from);
      if (i !== -1 && (best === -1 || i < best)) best = i;
    }
    return best;
  }

  /** The rest of the buffer is a proper prefix of one of `tags`: more input could complete it. */
  protected partialTag(at: number, tags: string[]): boolean {
    const rest = this.s.slice(at);
    return (
      !this.final &&
      rest.length > 0 &&
      tags.some((t) => t.length > rest.length && t.startsWith(rest))
    );
  }
}
