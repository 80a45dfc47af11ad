import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EMPTY } from 'rxjs';
import { FallbackLlmClient } from './fallback-llm.client.js';
import { LlmClient } from './llm.types.js';
import { llmClient } from '../../test/support/fake-llm.js';

/** A server whose start-up check says `problem`. */
class Checked extends LlmClient {
  constructor(private readonly problem: string | undefined) {
    super();
  }
  stream() {
    return EMPTY;
  }
  chatReply() {
    return EMPTY;
  }
  override check() {
    return Promise.resolve(this.problem);
  }
}

describe('FallbackLlmClient.check', () => {
  const signal = new AbortController().signal;
  const client = (problem: string | undefined) =>
    new FallbackLlmClient(new Checked(problem), new Checked('never asked'), () => undefined);

  it("gives the primary's problem, saying the fallback serves while the primary cannot be reached", async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const closed = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/v1`;
    await new Promise((r) => probe.close(r));
    const fallback = {
      baseUrl: 'http://b/v1',
      model: 'm',
      apiKey: '',
      extraBody: {},
      extraHeaders: {},
    };
    const primary = llmClient(closed, { model: '', fallback });
    const fallbackClient = new FallbackLlmClient(
      primary,
      new Checked('never asked'),
      () => undefined,
    );
    expect(await fallbackClient.check(signal)).toBe(
      `the LLM server at ${closed} cannot be reached (ECONNREFUSED): requests go to LLM_FALLBACK_BASE_URL until it answers`,
    );
    const refused =
      "the LLM server at http://a/v1 refused the engine's credentials (HTTP 401 to GET /models): check LLM_API_KEY or LLM_EXTRA_HEADERS";
    expect(await client(refused).check(signal)).toBe(refused);
    expect(await client(undefined).check(signal)).toBeUndefined();
  });
});
