import { TRAILING_LOOKAHEAD } from './qwen-xml-call.js';
import * as tags from './tags.js';
import { couldBeTag } from './text-scan.js';

const SLASH = 47;
const GT = 62;
/** Staged text is kept in pieces of about this many characters (see `add`). */
const PIECE = 64;

/** Index of the last '>' in `delta`, or -1. */
function lastGt(delta: string): number {
  // One character is the common delta; indexOf first: V8 makes it far cheaper than lastIndexOf,
  // and most deltas hold no '>'.
  if (delta.length === 1) return delta.charCodeAt(0) === GT ? 0 : -1;
  return delta.indexOf('>') === -1 ? -1 : delta.lastIndexOf('>');
}

/** The modes in which deltas are staged: inside a call, or after one while prose may still be part of it. */
export type StagedMode = 'xml' | 'hermes' | 'glm' | 'pending';

/**
 * Deltas received inside a call (or in the prose right after one), kept apart from the parser's
 * buffer until one of them could change the outcome. The (possibly long) buffer is then touched
 * only when a tag completes, which keeps the parser's cost linear when fed a character at a time.
 */
export class CallStage {
  /** Staged text in pieces of about `PIECE` characters: the last piece grows by concatenation. */
  private deltas: string[] = [];
  private piece = '';
  /** An end tag (`</function>`, `</tool_call>`) has been seen: the call may be complete. */
  seenCloser = false;
  /** Text after the last '>' (leading whitespace dropped) while it could still start a tag. */
  private afterTag: string | null = null;
  /** Characters received since a call ended and prose began (pending mode). */
  private held = 0;

  /** Stages `delta`; true when the buffer plus what is staged must be parsed now. */
  add(mode: StagedMode, delta: string, buf: string): boolean {
    // One string per character (deltas are often a token or less) would make the final join
    // cost more than the parse: small deltas are joined into pieces as they come.
    this.piece += delta;
    if (this.piece.length >= PIECE) {
      this.deltas.push(this.piece);
      this.piece = '';
    }
    return this.worthParsing(mode, delta, buf);
  }

  /** Everything staged, in order; the stage is empty afterwards. */
  take(): string {
    let text = this.piece;
    if (this.deltas.length > 0) {
      this.deltas.push(text);
      text = this.deltas.join('');
      this.deltas = [];
    }
    this.piece = '';
    return text;
  }

  /** Call mode begins on `buf`: what it already holds sets the state. */
  enterCall(buf: string): void {
    this.seenCloser = buf.includes(tags.END_FN) || buf.includes(tags.END_CALL);
    const gt = buf.lastIndexOf('>');
    const tail = gt === -1 ? '' : buf.slice(gt + 1).trimStart();
    this.afterTag = gt !== -1 && couldBeTag(tail) ? tail : null;
  }

  /** Pending mode begins with `held` characters of prose already after the call. */
  enterPending(held: number): void {
    this.held = held;
  }

  /** The last `n` characters received (staged deltas, then the buffer): where a tag that just completed lies. */
  private recent(n: number, buf: string): string {
    let text = this.piece;
    for (let i = this.deltas.length - 1; i >= 0 && text.length < n; i--)
      text = this.deltas[i]! + text;
    if (text.length < n) text = buf.slice(-(n - text.length)) + text;
    return text.slice(-n);
  }

  /** The `>` at `gt` of `delta` completes a closing tag (`</function>`, `</tool_call>`, …). */
  private closerEndsAt(gt: number, delta: string, buf: string): boolean {
    const lt = delta.lastIndexOf('<', gt);
    if (lt !== -1) return delta.charCodeAt(lt + 1) === SLASH;
    const window = this.recent(24 + delta.length, buf);
    const wlt = window.lastIndexOf('<', window.length - delta.length + gt);
    return wlt !== -1 && window.charCodeAt(wlt + 1) === SLASH;
  }

  private worthParsing(mode: StagedMode, delta: string, buf: string): boolean {
    if (mode === 'hermes') return delta.includes('}') || delta.includes('>');
    if (mode === 'glm') return delta.includes('>');
    if (mode === 'pending') {
      this.held += delta.length;
      if (this.held > TRAILING_LOOKAHEAD) return true;
      if (!delta.includes('>') && !delta.includes('=')) return false;
      const window = this.recent(12 + delta.length, buf);
      return tags.PENDING_TAGS.some((t) => window.includes(t));
    }
    const gt = lastGt(delta);
    // A call can only be complete once an end tag has been seen (tags complete with '>'). Until
    // then nothing is parsed, and what follows the last tag is looked at afresh at the '>' that
    // completes the end tag: most of a call is staged with no more work than this.
    if (!this.seenCloser) {
      if (gt === -1) return false;
      const window = this.recent(12 + delta.length, buf);
      this.seenCloser = window.includes(tags.END_FN) || window.includes(tags.END_CALL);
      if (!this.seenCloser) return false;
    }
    // Structure is decided when a tag completes ('>'), or when what follows one shows it is not
    // another tag (`<` alone, or `</tool_ca`, cannot tell yet); nothing else changes the outcome.
    let trigger = gt !== -1;
    if (gt !== -1) {
      const tail = delta.slice(gt + 1).trimStart();
      this.afterTag = couldBeTag(tail) ? tail : null;
      // A closing tag that ends what has arrived decides nothing yet: what follows a call's end
      // (or a value's) is what tells. Parsing waits for it, so a call is read once, not per closer.
      if (this.afterTag !== null && this.closerEndsAt(gt, delta, buf)) trigger = false;
    } else if (this.afterTag !== null) {
      const tail = this.afterTag === '' ? delta.trimStart() : this.afterTag + delta;
      this.afterTag = couldBeTag(tail) ? tail : null;
      trigger = this.afterTag === null;
    }
    return this.seenCloser && trigger;
  }
}
