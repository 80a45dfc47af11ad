import { CallStage } from './call-stage.js';
import { callOpener } from './call-opener.js';
import { glmBlock } from './glm-call.js';
import { hermesBlock } from './hermes-block.js';
import { parsedCall, type ParsedTextCall } from './hermes-call.js';
import { collect, type TextParserEvent, type TextParserSink } from './parser-events.js';
import { canFollowLt, heldSuffix, tagStart, WAITING_MARKUP, WAITING_MAX } from './text-scan.js';
import { pendingOutcome, type PendingCall } from './pending-call.js';
import { parseXmlCall } from './qwen-xml-call.js';
import type { ToolSchemas } from './value-typing.js';
import { untaggedReasoningEnd } from './untagged-reasoning.js';
import * as tags from './tags.js';
import { TURN_TOKENS, turnToken } from './turn-tokens.js';

export type { TextParserEvent, TextParserSink } from './parser-events.js';

/** A held-back tag prefix at least this long (`<to`, `<fu`) is dropped at the end of the output. */
const TRUNCATED_TAG_MIN = 3;

type Mode = 'text' | 'think' | 'untagged' | 'xml' | 'hermes' | 'glm' | 'pending' | 'ended';

/**
 * Incremental parser of model text: `push(delta)` returns the events that are certain,
 * `flush()` the rest at the end of the output. It separates user-visible text, `<think>`
 * reasoning, and tool calls written as Qwen3-Coder XML (wrapped or bare `<function=`), Hermes
 * JSON, or GLM's `<arg_key>`/`<arg_value>` pairs. No part of a tag ever reaches a `text` event: a suffix that could still become
 * one is held back until it cannot. Cost is linear in the input for ordinary output.
 */
export class ToolCallTextParser {
  private buf = '';
  private mode: Mode = 'text';
  private wrapped = false;
  private pending: PendingCall<ParsedTextCall> | undefined;
  /** In call and pending modes, deltas wait here until one could change the outcome. */
  private readonly stage = new CallStage();
  /** A `<tool_call>` was shown as prose (mentioned, not a call): its `</tool_call>` is prose too. */
  private openerInProse = false;
  /** The tag that closes the Hermes block being read (`</tool_call>`, or `</tools>`). */
  private blockCloser = tags.END_CALL;

  /** In `untagged` mode, where the next search for the reasoning's end starts. */
  private scanned = 0;

  /**
   * A `</think>` came with no `<think>` before it: the text before it was reasoning that the
   * template opened in the prompt, shown as the answer (see LLM_UNTAGGED_REASONING).
   */
  strayThinkEnd = false;

  /** `untaggedReasoning`: the text begins inside reasoning with no opening tag (see untagged-reasoning.ts). */
  constructor(
    private readonly schemas: ToolSchemas = new Map(),
    opts: { untaggedReasoning?: boolean } = {},
  ) {
    if (opts.untaggedReasoning) this.mode = 'untagged';
  }

  /** The server sends the reasoning apart (`reasoning_content`): the text is the answer. */
  reasoningApart(): void {
    if (this.mode === 'untagged' && this.buf === '') this.mode = 'text';
  }

  /** Feeds one delta; returns what is certain now. */
  push(delta: string): TextParserEvent[] {
    const out: TextParserEvent[] = [];
    this.feed(delta, collect(out));
    return out;
  }

  /** End of output: everything that was held back. */
  flush(): TextParserEvent[] {
    const out: TextParserEvent[] = [];
    this.end(collect(out));
    return out;
  }

  /** `push` without the event array: what is certain goes to `sink` at once. */
  feed(delta: string, sink: TextParserSink): void {
    // The hottest case, one character of prose, stays small enough for the caller to inline.
    if (delta.length === 1 && this.buf === '' && this.mode === 'text' && delta !== '<')
      sink.text(delta);
    else this.feedAny(delta, sink);
  }

  private feedAny(delta: string, sink: TextParserSink): void {
    if (delta === '' || this.mode === 'ended') return;
    // Fast path in text: when no '<' can begin a tag, or only a last one, which is held, the delta
    // (after a held '<' that it shows is not a tag) is text at once.
    if (
      this.mode === 'text' &&
      (this.buf === '' || (this.buf === '<' && !canFollowLt(delta.charCodeAt(0))))
    ) {
      const at = tagStart(delta);
      if (at === -1 || at === delta.length - 1) {
        const text = this.buf + (at === -1 ? delta : delta.slice(0, at));
        this.buf = at === -1 ? '' : '<';
        if (text !== '') sink.text(text);
        return;
      }
    }
    // A tag, or a call's opening, still arriving a token at a time: nothing to scan yet.
    if (this.mode === 'text' && this.buf.length + delta.length <= WAITING_MAX) {
      const held = this.buf + delta;
      if (WAITING_MARKUP.has(held)) return void (this.buf = held);
    }
    if (this.mode !== 'text' && this.mode !== 'think' && this.mode !== 'untagged') {
      // Keeps the cost linear: the (possibly long) buffer is only touched when a tag completes.
      if (!this.stage.add(this.mode, delta, this.buf)) return;
      this.buf += this.stage.take();
    } else {
      this.buf += delta;
    }
    while (this.step(false, sink));
  }

  /** `flush` without the event array. */
  end(sink: TextParserSink): void {
    this.buf += this.stage.take();
    while (this.step(true, sink));
  }

  /** Call mode begins on `this.buf`: what it already holds sets the staging state. */
  private enterXml(): void {
    this.mode = 'xml';
    this.openerInProse = false; // a call closes what it opens; a mention's closer can no longer come
    this.stage.enterCall(this.buf);
  }

  /** One state transition; false when it must wait for more input. */
  private step(final: boolean, out: TextParserSink): boolean {
    switch (this.mode) {
      case 'text':
        return this.stepText(final, out);
      case 'think':
        return this.stepThink(final, out);
      case 'untagged':
        return this.stepUntagged(final, out);
      case 'xml':
        return this.stepXml(final, out);
      case 'hermes':
        return this.endBlock(hermesBlock(this.buf, final, this.blockCloser), out);
      case 'glm':
        return this.endBlock(glmBlock(this.buf, final, this.schemas), out);
      case 'pending':
        return this.stepPending(final, out);
      case 'ended':
        return false;
    }
  }

  private emit(out: TextParserSink, type: 'text' | 'reasoning', text: string): void {
    if (text !== '') out[type](text);
  }

  private take(n: number): string {
    const head = this.buf.slice(0, n);
    this.buf = this.buf.slice(n);
    return head;
  }

  private stepText(final: boolean, out: TextParserSink): boolean {
    let at = -1;
    let tag = '';
    for (let i = this.buf.indexOf('<'); i !== -1 && at === -1; i = this.buf.indexOf('<', i + 1)) {
      // Only '<t', '<f', '</' and '<|' can begin one (`3 < 4` is prose).
      if (!canFollowLt(this.buf.charCodeAt(i + 1))) continue;
      const found = tags.TEXT_TAGS.find((t) => this.buf.startsWith(t, i));
      if (found) [at, tag] = [i, found];
    }
    if (at === -1) {
      const hold = heldSuffix(this.buf, tags.HOLD_TAGS);
      // At the end of the output, a tag cut off there (`<tool_ca`, `<func`) is markup, not text.
      const cut = final && hold < TRUNCATED_TAG_MIN ? 0 : hold;
      this.emit(out, 'text', this.take(this.buf.length - cut));
      if (final) this.buf = '';
      return false;
    }
    this.emit(out, 'text', this.take(at));
    if (TURN_TOKENS.includes(tag)) {
      const turn = turnToken(this.buf, final);
      if (turn.kind === 'skip') this.take(turn.length);
      else if (turn.kind === 'end') [this.buf, this.mode] = ['', 'ended'];
      return turn.kind === 'skip';
    }
    if (tags.ORPHAN_TAGS.includes(tag)) {
      if (tag === tags.END_THINK) this.strayThinkEnd = true;
      const mentioned = tag === tags.END_CALL && this.openerInProse;
      if (mentioned) this.openerInProse = false;
      const closer = this.take(tag.length);
      if (mentioned) this.emit(out, 'text', closer);
      return true;
    }
    if (tag === tags.THINK) {
      this.take(tags.THINK.length);
      this.mode = 'think';
      return true;
    }
    const opener = callOpener(tag, this.buf, final, this.schemas);
    switch (opener.kind) {
      case 'xml':
        this.buf = this.buf.slice(opener.skip);
        this.wrapped = opener.wrapped;
        this.enterXml();
        return true;
      case 'hermes':
        this.blockCloser = opener.closer;
        this.mode = 'hermes';
        this.openerInProse = false;
        return true;
      case 'glm':
        this.mode = 'glm';
        this.openerInProse = false;
        return true;
      case 'cut':
        this.buf = '';
        return false;
      case 'wait':
        return false;
      case 'prose':
        this.emit(out, 'text', this.take(opener.length));
        if (tag === tags.OPEN_CALL) this.openerInProse = true;
        return true;
    }
  }

  private stepThink(final: boolean, out: TextParserSink): boolean {
    const end = this.buf.indexOf(tags.END_THINK);
    if (end === -1) {
      const hold = final ? 0 : heldSuffix(this.buf, [tags.END_THINK]);
      this.emit(out, 'reasoning', this.take(this.buf.length - hold));
      if (final) this.mode = 'text';
      return false;
    }
    this.emit(out, 'reasoning', this.take(end));
    this.take(tags.END_THINK.length);
    this.mode = 'text';
    return true;
  }

  private stepUntagged(final: boolean, out: TextParserSink): boolean {
    const { end, next } = untaggedReasoningEnd(this.buf, this.scanned, final);
    this.scanned = next;
    if (end === -1 && !final) return false;
    // Reasoning that never ended was the answer: it is read as text, calls and all.
    if (end !== -1) this.emit(out, 'reasoning', this.take(end));
    if (this.buf.startsWith(tags.END_THINK)) this.take(tags.END_THINK.length);
    this.mode = 'text';
    return true;
  }

  private stepXml(final: boolean, out: TextParserSink): boolean {
    // Only a completed tag (or the few characters after one) can change the outcome.
    if (!final && !this.stage.seenCloser) return false;
    const result = parseXmlCall(this.buf, { wrapped: this.wrapped, final, schemas: this.schemas });
    if (result.kind === 'incomplete') return false;
    if (result.kind === 'invalid') {
      this.take(result.end);
      this.mode = 'text';
      return true;
    }
    const call: ParsedTextCall = {
      ...parsedCall(result.name, result.args),
      ...(result.unclosed && { unclosed: true }),
    };
    if (result.trailingText && !final) {
      this.pending = { call, end: result.end, scanFrom: result.end };
      this.mode = 'pending';
      this.stage.enterPending(this.buf.length - result.end);
      return false;
    }
    out.call(call);
    this.take(result.end);
    this.mode = 'text';
    return true;
  }

  /** A call followed by prose: the prose is held until it is clear the call really ended there. */
  private stepPending(final: boolean, out: TextParserSink): boolean {
    const pending = this.pending!;
    const outcome = pendingOutcome(this.buf, pending, final);
    if (outcome === 'wait') return false;
    this.pending = undefined;
    if (outcome === 'reparse') {
      this.enterXml();
      return true;
    }
    out.call(pending.call);
    this.take(pending.end);
    this.mode = 'text';
    return true;
  }

  /**
   * Hermes and GLM blocks (see hermes-block.ts, glm-call.ts): `block` is the call, or calls, at
   * the start of the buffer, undefined until the block is complete.
   */
  private endBlock(
    block: { end: number; calls: ParsedTextCall[] } | undefined,
    out: TextParserSink,
  ): boolean {
    if (block === undefined) return false;
    block.calls.forEach((call) => out.call(call));
    this.take(block.end);
    this.mode = 'text';
    return true;
  }
}
