import { Engine } from './support/engine.js';
import { FakeLlm, sseChunk, sseText } from './support/fake-llm.js';
import { writeToolsFile } from './support/tools-file.js';
import { useLlmPair } from './support/llm-pair.js';
import { WsClient } from './support/ws-client.js';

const overloaded = { kind: 'status', status: 503, body: 'overloaded' } as const;

describe('LLM_FALLBACK_BASE_URL: a second server for requests the first cannot answer', () => {
  const pair = useLlmPair({
    LLM_MODEL: 'big',
    LLM_MODELS: 'big,big-bank',
    LLM_EXTRA_BODY: '{"top_k":20}',
    LLM_EXTRA_HEADERS: '{"X-Gateway-Key":"primary"}',
    LLM_RETRIES: '1',
    LLM_RETRY_BACKOFF_MS: '10',
    LLM_TIMEOUT_SECS: '0.5',
    LLM_FALLBACK_MODEL: 'small',
    LLM_FALLBACK_API_KEY: 'sk-fallback',
    LLM_FALLBACK_EXTRA_BODY: '{"temperature":0.2}',
    LLM_FALLBACK_EXTRA_HEADERS: '{"X-Fallback-Key":"second"}',
  });
  const { primary, fallback } = pair;
  const turn = (text: string) => pair.turn(text);

  it('answers from the fallback when the primary stays overloaded through its retries', async () => {
    primary.enqueue(overloaded, overloaded);
    fallback.enqueue(sseText(['From the ', 'fallback.']));
    expect((await turn('hi')).at(-1)).toEqual({
      type: 'assistant_end',
      text: 'From the fallback.',
    });
    expect(primary.requests).toHaveLength(2);
    const [asked] = fallback.requests;
    expect(asked!.headers.authorization).toBe('Bearer sk-fallback');
    expect(asked!.headers['x-fallback-key']).toBe('second');
    expect(asked!.headers).not.toHaveProperty('x-gateway-key');
    expect(primary.requests[0]!.headers['x-gateway-key']).toBe('primary');
    expect(asked!.body).toMatchObject({ model: 'small', temperature: 0.2, stream: true });
    expect(asked!.body).not.toHaveProperty('top_k');
    const scrape = await (await fetch(`${pair.engine.httpUrl}/metrics`)).text();
    expect(scrape).toMatch(/^agent_engine_llm_fallbacks_total 1$/m);
  });

  it('answers from the fallback when the primary does not answer within LLM_TIMEOUT_SECS', async () => {
    primary.enqueue({ kind: 'hang' });
    fallback.enqueue(sseText(['Quick.']));
    expect((await turn('hi')).at(-1)).toEqual({ type: 'assistant_end', text: 'Quick.' });
    expect(primary.requests).toHaveLength(1); // a timeout is not retried on the same server
  });

  it('does not ask the fallback when the primary refuses the request itself (a 400)', async () => {
    primary.enqueue({ kind: 'status', status: 400, body: '{"error":{"message":"bad request"}}' });
    const msgs = await turn('hi');
    expect(msgs).toEqual([
      { type: 'error', code: 'llm_failed', message: 'LLM server answered HTTP 400: bad request' },
      { type: 'assistant_end', text: '' },
    ]);
    expect(fallback.requests).toHaveLength(0);
  });

  it("keeps the primary's answer once it has begun, even if it breaks off", async () => {
    primary.enqueue({
      kind: 'sse',
      pieces: [sseChunk({ role: 'assistant', content: '' }), sseChunk({ content: 'Half an ' })],
    });
    const msgs = await turn('hi');
    expect(msgs.map((m) => m.type)).toEqual(['assistant_delta', 'error', 'assistant_end']);
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Half an ' });
    expect(fallback.requests).toHaveLength(0);
  });

  it("asks the fallback for its own model, whatever model the session chose of the first server's", async () => {
    const ws = await WsClient.connect(pair.engine.wsUrl);
    ws.send({ type: 'session.update', model: 'big-bank' });
    await ws.waitFor((m) => m.type === 'session.updated');
    primary.enqueue(overloaded, overloaded);
    fallback.enqueue(sseText(['From the fallback.']));
    await ws.turn('hi');
    expect(primary.requests[0]!.body.model).toBe('big-bank');
    expect(fallback.requests[0]!.body.model).toBe('small');
    ws.close();
  });
});

it('answers from the fallback when the primary cannot be reached at all', async () => {
  const fallback = new FakeLlm();
  const engine = await Engine.start({
    LLM_BASE_URL: 'http://127.0.0.1:1/v1',
    LLM_MODEL: 'big',
    LLM_RETRIES: '0',
    LLM_FALLBACK_BASE_URL: await fallback.start(),
  });
  try {
    fallback.enqueue(sseText(['Still here.']));
    const ws = await WsClient.connect(engine.wsUrl);
    expect((await ws.turn('hi')).at(-1)).toEqual({ type: 'assistant_end', text: 'Still here.' });
    // LLM_FALLBACK_MODEL unset: the fallback's first model, from its GET /models.
    expect(fallback.requests[0]!.body.model).toBe('fake-model');
    ws.close();
  } finally {
    await engine?.stop();
    await fallback.stop();
  }
});

it("asks the fallback for the non-streamed reply too, when the primary's empty round is followed by an overload", async () => {
  const primary = new FakeLlm();
  const fallback = new FakeLlm();
  const engine = await Engine.start({
    LLM_BASE_URL: await primary.start(),
    LLM_MODEL: 'big',
    LLM_RETRIES: '1',
    LLM_RETRY_BACKOFF_MS: '10',
    LLM_FALLBACK_BASE_URL: await fallback.start(),
    LLM_FALLBACK_MODEL: 'small',
    // Tools active: a streamed round that ends empty is asked again without streaming (seed §5).
    LLM_TOOLS_FILE: writeToolsFile([
      { name: 'get_weather', url: 'http://127.0.0.1:1/{city}', method: 'GET' },
    ]),
  });
  try {
    primary.enqueue(sseText([]), overloaded, overloaded);
    fallback.enqueue({
      kind: 'json',
      body: { choices: [{ message: { role: 'assistant', content: 'Sunny, 21 degrees.' } }] },
    });
    const ws = await WsClient.connect(engine.wsUrl);
    expect((await ws.turn('weather?')).at(-1)).toEqual({
      type: 'assistant_end',
      text: 'Sunny, 21 degrees.',
    });
    ws.close();
    expect(primary.requests.map((r) => r.body.stream)).toEqual([true, false, false]);
    expect(fallback.requests).toHaveLength(1);
    expect(fallback.requests[0]!.body).toMatchObject({ model: 'small', stream: false });
  } finally {
    await engine?.stop();
    await primary.stop();
    await fallback.stop();
  }
});
