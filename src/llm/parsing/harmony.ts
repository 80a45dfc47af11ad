import { hermesBlock } from './special-token-calls.js';
import { TagRewriter, type TagMend } from './tag-rewriter.js';
import type { ToolSchemas } from './value-typing.js';

// gpt-oss's Harmony format in the text, met when the server sends special tokens and has no
// parser for them (an older llama.cpp, `transformers serve`, MLX servers):
//   <|channel|>analysis<|message|>The user wants the weather.<|end|>
//   <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>
//   {"city":"Paris"}<|call|>
// or, answering, `<|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>`. A
// message's header (from `<|start|>` or `<|channel|>` to `<|message|>`) names its channel, and a
// call's recipient there or in the role's part (`<|start|>assistant to=functions.NAME<|channel|>…`).

const START = '<|start|>';
const CHANNEL = '<|channel|>';
const MESSAGE = '<|message|>';
const CONSTRAIN = '<|constrain|>';
const END = '<|end|>';
const CALL = '<|call|>';
/** The end of the answer: left in the text, where the text parser ends it (see turn-tokens.ts). */
export const RETURN = '<|return|>';
const TOKENS = [START, CHANNEL, MESSAGE, CONSTRAIN, END, CALL, RETURN];
/** The tokens that end a call's message. */
const CALL_ENDS = [CALL, END, RETURN];
/** A header longer than this is none (its token is dropped as markup, the text kept). */
const MAX_HEADER = 200;
const ROLE = /^<\|start\|>([^\s<]*)/;
const RECIPIENT = /\bto=([^\s<]+)/;
const CHANNEL_NAME = /<\|channel\|>\s*(\w+)/;
const THINK = '<think>';
const END_THINK = '</think>';

/**
 * Rewrites Harmony messages into the markup the rest of the decoder reads: an `analysis`
 * message becomes reasoning (`<think>…</think>`), a message to a function a Hermes block (once
 * its `<|call|>` has arrived; at the end of the output, what was written of it), a `final` or
 * `commentary` message to no one its text (the latter is a preamble the user is meant to hear);
 * a header of another role than the assistant's ends the answer (the model goes on to write the
 * user's turn). Text without these tokens goes through as it is; only what may still be one of
 * them, or a header whose `<|message|>` has not arrived, is held back.
 */
export class HarmonyText extends TagRewriter {
  /** An analysis message is open: its `<|end|>` closes the reasoning. */
  private analysis = false;

  constructor(private readonly schemas: ToolSchemas) {
    super();
  }

  protected mend(s: string, i: number, final: boolean): TagMend | 'wait' | undefined {
    const token = this.tokenAt(s, i, TOKENS, final);
    if (token === undefined || token === 'wait') return token;
    const end = i + token.length;
    switch (token) {
      case START:
      case CHANNEL:
        return this.header(s, i, token, final);
      case END:
        return { text: this.closeAnalysis(), end };
      case RETURN:
        return { text: this.closeAnalysis() + RETURN, end };
      default: // `<|message|>`, `<|constrain|>` or `<|call|>` out of place: markup
        return { text: '', end };
    }
  }

  /** The message whose header starts at `i`. */
  private header(s: string, i: number, token: string, final: boolean): TagMend | 'wait' {
    const message = s.indexOf(MESSAGE, i);
    if (message === -1 && !final && s.length - i <= MAX_HEADER) return 'wait';
    // No header (or one cut off by the end of the output): the token alone is markup.
    if (message === -1 || message - i > MAX_HEADER) return { text: '', end: i + token.length };
    const header = s.slice(i, message);
    const body = message + MESSAGE.length;
    const role = ROLE.exec(header)?.[1];
    if (role !== undefined && role !== 'assistant')
      return { text: this.closeAnalysis() + RETURN, end: body };
    const recipient = RECIPIENT.exec(header)?.[1];
    if (recipient !== undefined) return this.call(s, body, recipient, final);
    if (CHANNEL_NAME.exec(header)?.[1] !== 'analysis')
      return { text: this.closeAnalysis(), end: body };
    const open = this.analysis ? '' : THINK;
    this.analysis = true;
    return { text: open, end: body };
  }

  /** A message to a function, whose arguments start at `body`. */
  private call(s: string, body: number, recipient: string, final: boolean): TagMend | 'wait' {
    let close = -1;
    let closer = '';
    for (const t of CALL_ENDS) {
      const at = s.indexOf(t, body);
      if (at !== -1 && (close === -1 || at < close)) [close, closer] = [at, t];
    }
    if (close === -1 && !final) return 'wait';
    const args = s.slice(body, close === -1 ? s.length : close).trim();
    const end = close === -1 ? s.length : close + closer.length;
    const text =
      close === -1 && args === '' ? '' : hermesBlock(this.toolName(recipient), args, close !== -1);
    return { text: this.closeAnalysis() + text, end };
  }

  /**
   * The tool a recipient names: `functions.NAME`, the `json` that some outputs glue to the name
   * without `<|constrain|>` (`get_weatherjson`) taken off when that names a tool.
   */
  private toolName(recipient: string): string {
    const name = recipient.startsWith('functions.')
      ? recipient.slice('functions.'.length)
      : recipient;
    if (!this.schemas.has(name) && name.endsWith('json') && this.schemas.has(name.slice(0, -4)))
      return name.slice(0, -4);
    return name;
  }

  private closeAnalysis(): string {
    if (!this.analysis) return '';
    this.analysis = false;
    return END_THINK;
  }
}
