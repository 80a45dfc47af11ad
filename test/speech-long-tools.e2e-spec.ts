import { Engine, openAiSpeech } from './support/engine.js';
import { FakeLlm, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { xmlCall } from './support/turn-harness.js';
import { synthesised, until } from './support/waiting.js';
import { voiceSession } from './support/ws-client.js';

/** What a caller hears while a call goes on for long (SPEECH_TOOL_STILL_MS). */
describe('speech while a tool runs for long', () => {
  const llm = new FakeLlm();
  const server = new RecordingServer();
  let engine: Engine;
  let release: () => void = () => {};

  beforeAll(async () => {
    const base = await server.start();
    server.respond((req, res) => {
      if (req.path === '/audio/speech')
        return void res.writeHead(200, { 'Content-Type': 'audio/pcm' }).end(Buffer.alloc(480, 7));
      void new Promise<void>((open) => (release = open)).then(() => res.end('confirmed'));
    });
    engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([{ name: 'book', url: `${base}/book`, method: 'POST' }]),
      ...openAiSpeech(base),
      SPEECH_AUDIO_LEAD_MS: '0',
      SPEECH_TOOL_WAIT_MS: '100',
      SPEECH_TOOL_STILL_MS: '400',
    });
  });
  afterAll(async () => {
    release();
    await engine?.stop();
    await llm.stop();
    await server.stop();
  });

  it("says it is still at work, in the session's language, as long as the call runs", async () => {
    const ws = await voiceSession(engine.wsUrl, { language: 'it' });
    llm.enqueue(sseText([xmlCall('book', {})]), sseText(['Prenotato.']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Prenota un tavolo.' });
    const still = "Ci sto ancora lavorando, grazie dell'attesa.";
    await until(() => synthesised(server).filter((t) => t === still).length === 2, 'speech');
    release();
    await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    const said = synthesised(server);
    // (A third may come while the call's result is on its way, on a slow machine.)
    expect(said[0]).toBe('Un momento.');
    expect(said.slice(1, -1).length).toBeGreaterThanOrEqual(2);
    expect(new Set(said.slice(1, -1))).toEqual(new Set([still]));
    expect(said.at(-1)).toBe('Prenotato.');
    // Neither phrase is the answer: the client's text and the history hold the model's words alone.
    const end = ws.messages.slice(from).find((m) => m.type === 'assistant_end');
    expect(end).toEqual({ type: 'assistant_end', text: 'Prenotato.' });
    ws.close();
  });
});
