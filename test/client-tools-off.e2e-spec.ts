import { FakeLlm } from './support/fake-llm.js';
import { WsClient } from './support/ws-client.js';

/** Tools the client runs itself, on an engine that calls no tools at all. */
describe('client tools with tool calling switched off', () => {
  const llm = new FakeLlm();
  it('refuses a declaration (LLM_TOOLS_ENABLED=false)', async () => {
    const { Engine } = await import('./support/engine.js');
    const engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_TOOLS_ENABLED: 'false',
    });
    try {
      const ws = await WsClient.connect(engine.wsUrl);
      ws.send({ type: 'session.update', client_tools: [{ name: 'vibrate' }] });
      const error = await ws.waitFor((m) => m.type === 'error');
      expect(error.message).toBe(
        'this engine calls no tools (LLM_TOOLS_ENABLED=false): "client_tools" must be empty; nothing was changed',
      );
      ws.close();
    } finally {
      await engine?.stop();
      await llm.stop();
    }
  });
});
