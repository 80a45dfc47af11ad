import { HarmonyText, RETURN } from './harmony.js';
import { TagDialects } from './tag-dialects.js';
import { AnswerMarkup } from './answer-markup.js';
import type { ToolSchemas } from './value-typing.js';

/**
 * Content rewritten, before the text parser reads it, into the markup it reads: gpt-oss's
 * Harmony messages (see HarmonyText), other models' answer markup (see AnswerMarkup) and, while
 * tools are active, the other call dialects (see TagDialects). Nothing after the end of the
 * answer (`<|return|>`) goes on: a call written after it is not read.
 */
export class TextRewrites {
  private readonly harmony: HarmonyText;
  private readonly answer = new AnswerMarkup();
  private readonly dialects: TagDialects | undefined;
  private ended = false;

  constructor(schemas: ToolSchemas) {
    this.harmony = new HarmonyText(schemas);
    if (schemas.size > 0) this.dialects = new TagDialects(schemas);
  }

  /** The text that is certain now, rewritten. */
  push(content: string): string {
    if (this.ended) return '';
    const plain = this.answer.push(this.harmony.push(content));
    return this.upToEnd(this.dialects ? this.dialects.push(plain) : plain);
  }

  /** End of output: whatever was held. */
  end(): string {
    if (this.ended) return '';
    const plain = this.answer.push(this.harmony.end()) + this.answer.end();
    return this.upToEnd(this.dialects ? this.dialects.push(plain) + this.dialects.end() : plain);
  }

  private upToEnd(text: string): string {
    const at = text.indexOf(RETURN);
    if (at === -1) return text;
    this.ended = true;
    return text.slice(0, at + RETURN.length);
  }
}
