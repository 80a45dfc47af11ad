/** The frame of splitters that take calls out of streamed text. Pure: no Nest import. */
import type { ParsedTextCall } from './hermes-call.js';

/** Where a splitter's output goes: text in order, and each call once complete. */
export interface SplitSink {
  text(text: string): void;
  calls(calls: ParsedTextCall[]): void;
}

/**
 * Takes calls out of text that arrives in pieces: each piece is read after what was held back
 * of the last (a call, or what may become one, still incomplete); at the end, what is held is
 * read as final.
 */
export abstract class HeldSplitter {
  protected held = '';

  push(content: string, sink: SplitSink): void {
    this.run(this.held + content, sink, false);
  }

  end(sink: SplitSink): void {
    const rest = this.held;
    this.held = '';
    if (rest !== '') this.run(rest, sink, true);
  }

  /** Reads `s`, sends out what is decided, and keeps the rest in `held` (none when `final`). */
  protected abstract run(s: string, sink: SplitSink, final: boolean): void;
}
