/** The first buffer of a text; it doubles as the text grows. */
const INITIAL_BYTES = 512;
/** Pieces kept as strings before they are written out together (one native call per batch). */
const BATCH = 8;

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Text that arrives a piece at a time and is read whole at the end (a round's text, a turn's
 * visible answer, a reasoning stream). Every few pieces are written as UTF-8 into a buffer
 * outside the JavaScript heap, so each delta's string dies young. Kept as strings until the turn
 * ends, every piece would be copied by a young-generation GC and then promoted: with hundreds of
 * sessions streaming, the GC pauses (which every session's next delta waits on) would grow with
 * the text held.
 */
export class StreamedText {
  private bytes: Buffer | undefined;
  private used = 0;
  private readonly pieces: string[] = [];
  private size = 0;
  private last = '';
  /** A high surrogate that ended the last piece: it is written with its low half. */
  private high = '';

  append(text: string): void {
    if (text === '') return;
    this.size += text.length;
    this.last = text[text.length - 1]!;
    this.pieces.push(text);
    if (this.pieces.length === BATCH) this.flush();
  }

  /** Its length in UTF-16 code units, as `toString().length`. */
  get length(): number {
    return this.size;
  }

  /** The last character, '' while empty. */
  get lastChar(): string {
    return this.last;
  }

  toString(): string {
    this.flush();
    const text = this.bytes === undefined ? '' : this.bytes.toString('utf8', 0, this.used);
    return text + this.high;
  }

  private flush(): void {
    if (this.pieces.length === 0) return;
    let piece = this.high + this.pieces.join('');
    this.pieces.length = 0;
    this.high = '';
    if (isHighSurrogate(piece.charCodeAt(piece.length - 1))) {
      this.high = piece[piece.length - 1]!;
      piece = piece.slice(0, -1);
    }
    const most = piece.length * 3;
    if (this.bytes === undefined || this.used + most > this.bytes.length) this.grow(most);
    this.used += this.bytes!.write(piece, this.used);
  }

  private grow(needed: number): void {
    let size = this.bytes?.length ?? INITIAL_BYTES;
    while (size < this.used + needed) size *= 2;
    const bytes = Buffer.allocUnsafe(size);
    this.bytes?.copy(bytes, 0, 0, this.used);
    this.bytes = bytes;
  }
}
