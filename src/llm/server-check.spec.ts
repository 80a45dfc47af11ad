import { modelsProblem, unreachableReason } from './server-check.js';

const base = 'http://vllm:8000/v1';
const list = (...ids: string[]) => ({
  object: 'list',
  data: ids.map((id) => ({ id, object: 'model' })),
});

describe('modelsProblem (the start-up check of GET /models)', () => {
  it('finds nothing wrong with a server that lists the model, or lists some model when none is set', () => {
    expect(modelsProblem(200, list('qwen3-coder', 'other'), 'qwen3-coder', base)).toBeUndefined();
    expect(modelsProblem(200, list('qwen3-coder'), '', base)).toBeUndefined();
    // A gateway that lists nothing, or has no such endpoint, when the model is named.
    expect(modelsProblem(200, { data: [] }, 'gpt-4o-mini', base)).toBeUndefined();
    expect(modelsProblem(404, undefined, 'gpt-4o-mini', base)).toBeUndefined();
  });

  it('names the model the server does not list, and what it lists', () => {
    expect(modelsProblem(200, list('Qwen/Qwen3-Coder-30B'), 'qwen3-coder', base)).toBe(
      `LLM_MODEL "qwen3-coder" is not among the models the LLM server at ${base} lists (Qwen/Qwen3-Coder-30B): it will likely refuse every request`,
    );
    const many = list(...Array.from({ length: 12 }, (_, i) => `m${i}`));
    expect(modelsProblem(200, many, 'x', base)).toMatch(/\(m0, m1, .*, m9, … \(12 in all\)\)/);
  });

  it('says when the credentials are refused, and when no model can be known', () => {
    expect(modelsProblem(401, { error: 'no' }, 'm', base)).toBe(
      `the LLM server at ${base} refused the engine's credentials (HTTP 401 to GET /models): check LLM_API_KEY or LLM_EXTRA_HEADERS`,
    );
    expect(modelsProblem(403, undefined, '', base)).toMatch(/HTTP 403 to GET \/models/);
    expect(modelsProblem(404, undefined, '', base)).toBe(
      `the LLM server at ${base} answered HTTP 404 to GET /models and LLM_MODEL is empty: set LLM_MODEL`,
    );
    expect(modelsProblem(200, { data: [] }, '', base)).toMatch(
      /lists no model and LLM_MODEL is empty/,
    );
    expect(modelsProblem(200, 'not json', '', base)).toMatch(/lists no model/);
  });

  it('tells why a request did not reach the server in a few words', () => {
    expect(
      unreachableReason(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })),
    ).toBe('ECONNREFUSED');
    expect(unreachableReason(new DOMException('The operation timed out.', 'TimeoutError'))).toBe(
      'timed out',
    );
    expect(unreachableReason(new Error('boom'))).toBe('boom');
  });
});
