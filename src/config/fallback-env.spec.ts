import { EnvError, parseEnv } from './env.js';

describe('LLM_FALLBACK_AFTER_MS', () => {
  it('reads the wait before the fallback is asked as well: 0 (never) by default', () => {
    const fallback = { LLM_FALLBACK_BASE_URL: 'http://f/v1' };
    expect(parseEnv(fallback).llm.fallback?.afterMs).toBe(0);
    expect(parseEnv({ ...fallback, LLM_FALLBACK_AFTER_MS: '800' }).llm.fallback?.afterMs).toBe(800);
  });

  it('stops start-up naming the variable: out of range, or with no second server', () => {
    const fallback = { LLM_FALLBACK_BASE_URL: 'http://f/v1' };
    for (const value of ['-1', '60001', '0.5', 'soon'])
      expect(() => parseEnv({ ...fallback, LLM_FALLBACK_AFTER_MS: value })).toThrow(
        /^LLM_FALLBACK_AFTER_MS/,
      );
    expect(() => parseEnv({ LLM_FALLBACK_AFTER_MS: '800' })).toThrow(
      new EnvError(
        'LLM_FALLBACK_AFTER_MS is set but LLM_FALLBACK_BASE_URL is not: there is no second server to ask',
      ),
    );
    expect(parseEnv({ LLM_FALLBACK_AFTER_MS: '0' }).llm.fallback).toBeUndefined();
  });
});

describe('STT_FALLBACK_AFTER_MS', () => {
  it('reads the wait before the second speech-to-text server is asked as well', () => {
    const fallback = { STT_FALLBACK_BASE_URL: 'http://f/v1' };
    expect(parseEnv(fallback).speech.stt.fallback?.afterMs).toBe(0);
    expect(
      parseEnv({ ...fallback, STT_FALLBACK_AFTER_MS: '400' }).speech.stt.fallback,
    ).toMatchObject({ afterMs: 400 });
    expect(() => parseEnv({ ...fallback, STT_FALLBACK_AFTER_MS: '70000' })).toThrow(
      /^STT_FALLBACK_AFTER_MS/,
    );
    expect(() => parseEnv({ STT_FALLBACK_AFTER_MS: '400' })).toThrow(
      'STT_FALLBACK_AFTER_MS is set but STT_FALLBACK_BASE_URL is not: there is no second server to ask',
    );
  });
});
