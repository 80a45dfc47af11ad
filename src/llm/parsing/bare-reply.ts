import { bareCalls, jsonObjectEnd, type ParsedTextCall } from './hermes-call.js';
import { mistralCalls } from './mistral-call.js';
import type { ToolSchemas } from './value-typing.js';
import { FENCE } from './tags.js';

/** A reply that starts like a bare call is held at most this long while it may be one. */
export const BARE_REPLY_MAX = 16_384;
/**
 * How a bare JSON or pythonic call starts (`{"` or `[{"`, quotes of either kind, or `[name(`),
 * and what may still become that.
 */
const JSON_START = /^(?:\{\s*["']|\[\s*\{\s*["']|\[\s*[A-Za-z_][\w.]*\s*\()/;
const JSON_UNDECIDED = /^(?:\{|\[|\[\s*\{|\[\s*[A-Za-z_][\w.]*)\s*$/;
/** A Markdown fence around the call (```json … ```), and what may still become its opening. */
export const FENCE_OPEN = /^```(?:json)?[ \t]*\r?\n\s*/i;
export const FENCE_UNDECIDED = /^`{1,3}(?:[A-Za-z_]*[ \t]*\r?)?$/;

/**
 * The calls of JSON the end of the output cut off, as far as it can be repaired, said to be
 * unclosed (a call cut at the token limit is not run, see CompletionDecoder.emitCall).
 */
export function cutCalls(json: string, schemas: ToolSchemas): ParsedTextCall[] | undefined {
  return bareCalls(json, schemas)?.map((call) => ({ ...call, unclosed: true as const }));
}

/** What a held reply start turned out to be. */
export type HeadOutcome =
  | { kind: 'hold' }
  | { kind: 'text'; text: string }
  | { kind: 'calls'; calls: ParsedTextCall[]; rest: string };

/**
 * The start of a reply while tools are active: it may be nothing but calls written without tags
 * (Llama's JSON or pythonic calls from a server without their parser, Qwen3.6's drift to JSON;
 * Mistral's `NAME{…}`, DeepSeek's `NAME{…}` and Kimi's `functions.NAME:0{…}` once their special
 * tokens are skipped from the text). Held until that is decided; then calls (and the text after
 * them), or text.
 */
export class BareReplyHead {
  private head = '';

  constructor(private readonly schemas: ToolSchemas) {}

  push(content: string, final: boolean): HeadOutcome {
    this.head += content;
    const start = this.head.length - this.head.trimStart().length;
    const text = this.head.slice(start);
    if (this.schemas.size === 0) return this.asText();
    const fence = FENCE_OPEN.exec(text)?.[0].length ?? 0;
    const body = text.slice(fence);
    if (JSON_START.test(body)) return this.json(start + fence, final, fence > 0);
    if (fence > 0 && !final && (body === '' || JSON_UNDECIDED.test(body))) return { kind: 'hold' };
    const mistral = mistralCalls(text, this.schemas, final);
    if (mistral === 'wait') return this.hold(final);
    if (mistral) return { kind: 'calls', calls: mistral.calls, rest: text.slice(mistral.end) };
    if (!final && (text === '' || JSON_UNDECIDED.test(text) || FENCE_UNDECIDED.test(text)))
      return { kind: 'hold' };
    return this.asText();
  }

  private asText(): HeadOutcome {
    return { kind: 'text', text: this.head };
  }

  private hold(final: boolean): HeadOutcome {
    return final || this.head.length >= BARE_REPLY_MAX ? this.asText() : { kind: 'hold' };
  }

  /** One JSON value: a call or an array of calls (see `bareCalls`), maybe in a fence. */
  private json(start: number, final: boolean, fenced: boolean): HeadOutcome {
    const end = jsonObjectEnd(this.head, start);
    if (end === -1) {
      const cut = final ? cutCalls(this.head.slice(start), this.schemas) : undefined;
      return cut ? { kind: 'calls', calls: cut, rest: '' } : this.hold(final);
    }
    const calls = bareCalls(this.head.slice(start, end), this.schemas);
    if (!calls) return this.asText();
    let rest = this.head.slice(end);
    if (fenced) {
      const after = rest.trimStart();
      if (after.startsWith(FENCE)) rest = after.slice(FENCE.length);
      else if (!final && FENCE.startsWith(after)) return { kind: 'hold' };
    }
    return { kind: 'calls', calls, rest };
  }
}
