import { TagRewriter, type TagMend } from './tag-rewriter.js';
import { END_THINK, THINK } from './tags.js';

// Reasoning marked by other tags than `<think>`, from models whose server has no reasoning
// parser for them: spoken, the caller heard the agent think aloud.
const PAIRS: readonly (readonly [string, string])[] = [
  ['<seed:think>', '</seed:think>'], // ByteDance Seed-OSS
  ['[THINK]', '[/THINK]'], // Mistral's Magistral
  ['◁think▷', '◁/think▷'], // Kimi-VL Thinking
  ['<thought>', '</thought>'], // EXAONE Deep
  ['<thinking>', '</thinking>'], // models tuned on Anthropic-style traces
  ['<reasoning>', '</reasoning>'], // models tuned on `<reasoning>` / `<answer>` traces
];
/** Tags around the answer after such reasoning (Granite's `<response>`, `<answer>`): markup. */
const AROUND_ANSWER = ['<response>', '</response>', '<answer>', '</answer>'];

const OPENERS = new Set(PAIRS.map(([open]) => open));
const CLOSERS = new Set(PAIRS.map(([, close]) => close));
const TOKENS = [...OPENERS, ...CLOSERS, ...AROUND_ANSWER];

/**
 * Rewrites the other reasoning tags as `<think>` and `</think>`, which the text parser reads (a
 * closer with no opener too: reasoning whose opening tag the prompt held), and drops the tags
 * around an answer. Only what may still be one of these tags is held back.
 */
export class ThinkVariants extends TagRewriter {
  constructor() {
    super(['<', '[', '◁']);
  }

  protected mend(s: string, i: number, final: boolean): TagMend | 'wait' | undefined {
    const token = this.tokenAt(s, i, TOKENS, final);
    if (token === undefined || token === 'wait') return token;
    const text = OPENERS.has(token) ? THINK : CLOSERS.has(token) ? END_THINK : '';
    return { text, end: i + token.length };
  }
}
