/** Pieces joined into one string at a time; see StreamedText. */
const BATCH = 32;

/**
 * Text that arrives a piece at a time and is read whole at the end (a round's text, a turn's
 * visible answer). Built with `+=`, it would keep each piece and a cons cell alive until the
 * turn ends, and every young-generation GC would copy them all again: GC pauses, which every
 * session's next delta waits on, would grow with the deltas streamed. Here pieces are joined
 * every BATCH, so a long answer is a handful of strings.
 */
export class StreamedText {
  private joined = '';
  private readonly pieces: string[] = [];
  private size = 0;
  private last = '';

  append(text: string): void {
    this.pieces.push(text);
    this.size += text.length;
    if (text !== '') this.last = text[text.length - 1]!;
    if (this.pieces.length === BATCH) this.join();
  }

  get length(): number {
    return this.size;
  }

  /** The last character, '' while empty. */
  get lastChar(): string {
    return this.last;
  }

  toString(): string {
    this.join();
    return this.joined;
  }

  private join(): void {
    if (this.pieces.length === 0) return;
    this.joined += this.pieces.join('');
    this.pieces.length = 0;
  }
}
