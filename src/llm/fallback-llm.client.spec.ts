import { EMPTY } from 'rxjs';
import { FallbackLlmClient } from './fallback-llm.client.js';
import { LlmClient } from './llm.types.js';

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
    expect(
      await client(
        'the LLM server at http://a/v1 cannot be reached (ECONNREFUSED): turns fail until it answers',
      ).check(signal),
    ).toBe(
      'the LLM server at http://a/v1 cannot be reached (ECONNREFUSED): requests go to LLM_FALLBACK_BASE_URL until it answers',
    );
    const refused =
      "the LLM server at http://a/v1 refused the engine's credentials (HTTP 401 to GET /models): check LLM_API_KEY or LLM_EXTRA_HEADERS";
    expect(await client(refused).check(signal)).toBe(refused);
    expect(await client(undefined).check(signal)).toBeUndefined();
  });
});
