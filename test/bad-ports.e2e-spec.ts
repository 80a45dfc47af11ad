import { onBadPort } from './support/bad-port.js';
import { Engine, openAiSpeech } from './support/engine.js';
import { FakeLlm, sseText } from './support/fake-llm.js';
import { FakeSpeech } from './support/speech-server.js';
import { voiceSession } from './support/ws-client.js';

// The Fetch standard's "bad ports" (X11's 6000, IRC's 6665–6669, SIP's 5060, …) are refused by
// fetch: with them, an LLM server whose model is looked up (GET /models), or a speech server,
// failed every turn with "fetch failed". A browser's rule, not the engine's.
describe('Servers of the engine on ports fetch calls bad', () => {
  const llm = new FakeLlm();
  const speech = new FakeSpeech();
  let engine: Engine;
  beforeAll(async () => {
    let llmUrl = '';
    let speechUrl = '';
    await onBadPort(async (port) => (llmUrl = await llm.start(port)));
    await onBadPort(async (port) => (speechUrl = await speech.start(port)));
    // No LLM_MODEL: the model is looked up on the server.
    engine = await Engine.start({ LLM_BASE_URL: llmUrl, ...openAiSpeech(speechUrl) });
  });
  afterAll(async () => {
    await engine?.stop();
    await Promise.all([llm.stop(), speech.stop()]);
  });

  it('answer the turn: the model looked up, the answer spoken', async () => {
    const ws = await voiceSession(engine.wsUrl);
    llm.enqueue(sseText(['Hello ', 'there.']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Hi' });
    await ws.waitFor((m) => m.type === 'audio_end', from, 10000);
    const msgs = ws.messages.slice(from);
    expect(msgs.filter((m) => m.type === 'error')).toEqual([]);
    expect(msgs.find((m) => m.type === 'assistant_end')).toMatchObject({ text: 'Hello there.' });
    expect(msgs.filter((m) => m.type === 'audio').length).toBeGreaterThan(0);
    expect(llm.modelsRequests.length).toBeGreaterThan(0);
    expect(llm.requests[0]!.body.model).toBe('fake-model');
    expect(speech.inputs()).toEqual(['Hello there.']);
    ws.close();
  });
});
