import type { LlmUsage } from './llm.types.js';

/** Token counts of a turn: the sum over its completion requests. */
export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0);

/** Adds one request's usage (fields may be missing) to a turn's running total. */
export function addUsage(total: TokenUsage | undefined, usage: LlmUsage): TokenUsage {
  const prompt = count(usage.prompt_tokens);
  const completion = count(usage.completion_tokens);
  const sum = count(usage.total_tokens) || prompt + completion;
  return {
    prompt_tokens: (total?.prompt_tokens ?? 0) + prompt,
    completion_tokens: (total?.completion_tokens ?? 0) + completion,
    total_tokens: (total?.total_tokens ?? 0) + sum,
  };
}
