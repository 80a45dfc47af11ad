import { Engine } from './support/engine.js';
import { sseText, useFakeLlm } from './support/fake-llm.js';
import { WsClient } from './support/ws-client.js';

/**
 * LLM_MODELS: a session chooses its model (one use case or tenant each, as vLLM's LoRA adapters
 * serve them); any other name is refused, and null brings the engine's model back.
 */
describe("a session's model (LLM_MODELS)", () => {
  const { llm, url } = useFakeLlm();
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({
      LLM_BASE_URL: url(),
      LLM_MODEL: 'qwen3-coder',
      LLM_MODELS: 'qwen3-coder, qwen3-coder-bank',
    });
  });
  afterAll(() => engine.stop());

  it('asks for the model the session chose, refuses another, and goes back with null', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    const model = async () => {
      llm.enqueue(sseText(['ok']));
      await ws.turn('hi');
      return llm.requests.at(-1)!.body.model as string;
    };
    expect(await model()).toBe('qwen3-coder');
    ws.send({ type: 'session.update', model: 'qwen3-coder-bank' });
    expect(await ws.waitFor((m) => m.type === 'session.updated')).toMatchObject({
      settings: { model: 'qwen3-coder-bank' },
    });
    expect(await model()).toBe('qwen3-coder-bank');

    const from = ws.messages.length;
    ws.send({ type: 'session.update', model: 'gpt-4o' });
    expect(await ws.waitFor((m) => m.type === 'error', from)).toMatchObject({
      message:
        'unknown model "gpt-4o" in "model": the models offered are qwen3-coder, qwen3-coder-bank; nothing was changed',
    });
    expect(await model()).toBe('qwen3-coder-bank');

    const back = ws.messages.length;
    ws.send({ type: 'session.update', model: null });
    await ws.waitFor((m) => m.type === 'session.updated', back);
    expect(await model()).toBe('qwen3-coder');
    ws.close();
  });
});
