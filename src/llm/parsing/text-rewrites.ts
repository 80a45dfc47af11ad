import { HarmonyText } from './harmony.js';
import { TagDialects } from './tag-dialects.js';
import { ThinkVariants } from './think-variants.js';
import type { ToolSchemas } from './value-typing.js';

/**
 * Content rewritten, before the text parser reads it, into the markup it reads: gpt-oss's
 * Harmony messages (see HarmonyText), reasoning under other tags than `<think>` (see
 * ThinkVariants) and, while tools are active, the other call dialects (see TagDialects).
 */
export class TextRewrites {
  private readonly harmony: HarmonyText;
  private readonly thinks = new ThinkVariants();
  private readonly dialects: TagDialects | undefined;

  constructor(schemas: ToolSchemas) {
    this.harmony = new HarmonyText(schemas);
    if (schemas.size > 0) this.dialects = new TagDialects(schemas);
  }

  /** The text that is certain now, rewritten. */
  push(content: string): string {
    const plain = this.thinks.push(this.harmony.push(content));
    return this.dialects ? this.dialects.push(plain) : plain;
  }

  /** End of output: whatever was held. */
  end(): string {
    const plain = this.thinks.push(this.harmony.end()) + this.thinks.end();
    return this.dialects ? this.dialects.push(plain) + this.dialects.end() : plain;
  }
}
