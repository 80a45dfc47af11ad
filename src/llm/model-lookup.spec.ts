import { modelsProblem, unreachableReason, untilAborted } from './model-lookup.js';
import { StreamFault } from './stream-fault.js';

const base = 'http://vllm:8000/v1';

describe('modelsProblem (the start-up GET /models without LLM_MODEL)', () => {
  it('says when the credentials are refused, when the server has no model to give, and when it cannot be reached', () => {
    expect(modelsProblem(new StreamFault('no', { status: 401 }), base)).toBe(
      `the LLM server at ${base} refused the engine's credentials (HTTP 401 to GET /models): check LLM_API_KEY or LLM_EXTRA_HEADERS`,
    );
    expect(modelsProblem(new StreamFault('no', { status: 403 }), base)).toMatch(/HTTP 403 to GET/);
    expect(modelsProblem(new StreamFault('not found', { status: 404 }), base)).toBe(
      `the LLM server at ${base} answered HTTP 404 to GET /models, and LLM_MODEL is empty: set LLM_MODEL`,
    );
    expect(
      modelsProblem(new StreamFault('LLM_MODEL is empty and GET /models listed no model'), base),
    ).toBe(`the LLM server at ${base} lists no model, and LLM_MODEL is empty: set LLM_MODEL`);
    expect(
      modelsProblem(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }), base),
    ).toBe(
      `the LLM server at ${base} cannot be reached (ECONNREFUSED): turns fail until it answers`,
    );
    const untrusted = { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' };
    expect(modelsProblem(new TypeError('fetch failed', { cause: untrusted }), base, true)).toBe(
      `the LLM server at ${base} has a TLS certificate the engine does not trust (UNABLE_TO_VERIFY_LEAF_SIGNATURE; a private CA's certificates are trusted once NODE_EXTRA_CA_CERTS names its PEM file): requests go to LLM_FALLBACK_BASE_URL until it answers`,
    );
  });

  it("never shows the password of LLM_BASE_URL's credentials", () => {
    const refused = new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    expect(modelsProblem(refused, 'https://engine:s3cret@llm.corp/v1')).toBe(
      'the LLM server at https://llm.corp/v1 cannot be reached (ECONNREFUSED): turns fail until it answers',
    );
  });

  it('tells why a request did not reach the server in a few words', () => {
    expect(unreachableReason(new DOMException('The operation timed out.', 'TimeoutError'))).toBe(
      'timed out',
    );
    expect(unreachableReason(new Error('boom'))).toBe('boom');
  });
});

describe('untilAborted', () => {
  it("gives the promise's outcome, or the signal's reason as soon as it aborts", async () => {
    const never = new Promise<string>(() => undefined);
    const stop = new AbortController();
    const waiting = untilAborted(never, stop.signal);
    stop.abort(new Error('turn cancelled'));
    await expect(waiting).rejects.toThrow('turn cancelled');
    await expect(untilAborted(Promise.resolve('m'), new AbortController().signal)).resolves.toBe(
      'm',
    );
    await expect(
      untilAborted(Promise.reject(new Error('x')), new AbortController().signal),
    ).rejects.toThrow('x');
    await expect(
      untilAborted(Promise.resolve('m'), AbortSignal.abort(new Error('gone'))),
    ).rejects.toThrow('gone');
  });
});
