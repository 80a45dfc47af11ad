import { addUsage } from './usage.js';

describe('addUsage', () => {
  it('sums the requests of a turn', () => {
    const first = addUsage(undefined, {
      prompt_tokens: 100,
      completion_tokens: 20,
      total_tokens: 120,
    });
    expect(
      addUsage(first, { prompt_tokens: 150, completion_tokens: 5, total_tokens: 155 }),
    ).toEqual({
      prompt_tokens: 250,
      completion_tokens: 25,
      total_tokens: 275,
    });
  });

  it('fills a missing total and ignores what is not a count', () => {
    expect(
      addUsage(undefined, { prompt_tokens: 7, completion_tokens: 'x' as unknown as number }),
    ).toEqual({ prompt_tokens: 7, completion_tokens: 0, total_tokens: 7 });
  });
});
