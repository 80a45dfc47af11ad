import { Engine, openAiSpeech } from './support/engine.js';
import { FakeLlm, sseChunk, sseText, type Script } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { xmlCall } from './support/turn-harness.js';
import { synthesised } from './support/waiting.js';
import { voiceSession, type WsClient } from './support/ws-client.js';

/** A model that reasons for `ms` (a reasoning delta each 100 ms) before it writes `content`. */
function thinking(ms: number, content: string): Script {
  const reasoning = Array.from({ length: ms / 100 }, () =>
    sseChunk({ reasoning_content: 'Let me think. ' }),
  );
  const [first, ...rest] = sseText([content]).pieces;
  return { kind: 'sse', pieces: [first!, ...reasoning, ...rest], delayMs: 100 };
}

/** What a caller hears while the model says nothing for long (SPEECH_THINKING_WAIT_MS). */
describe('speech while the model thinks', () => {
  const llm = new FakeLlm();
  const server = new RecordingServer();
  let engine: Engine;

  beforeAll(async () => {
    const base = await server.start();
    server.respond((req, res) => {
      if (req.path === '/audio/speech')
        return void res.writeHead(200, { 'Content-Type': 'audio/pcm' }).end(Buffer.alloc(480, 7));
      setTimeout(() => res.end('Sunny, 21 degrees'), 1000);
    });
    engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([{ name: 'weather', url: `${base}/weather`, method: 'GET' }]),
      ...openAiSpeech(base),
      SPEECH_AUDIO_LEAD_MS: '0',
      SPEECH_TOOL_WAIT_MS: '300',
      SPEECH_THINKING_WAIT_MS: '400',
    });
  });
  beforeEach(() => {
    server.requests.length = 0;
  });
  afterAll(async () => {
    await engine?.stop();
    await llm.stop();
    await server.stop();
  });

  async function turn(ws: WsClient, text: string) {
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text });
    await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    return ws.messages.slice(from).find((m) => m.type === 'assistant_end');
  }

  it('says the wait phrase once while the model reasons, then the answer', async () => {
    const ws = await voiceSession(engine.wsUrl);
    llm.enqueue(thinking(1500, 'It is sunny.'), sseText(['Anything else?']));
    const end = await turn(ws, 'Should I take an umbrella?');
    expect(synthesised(server)).toEqual(['One moment.', 'It is sunny.']);
    expect(end).toEqual({ type: 'assistant_end', text: 'It is sunny.' });
    // The phrase is not the model's: the next request's history holds its answer alone.
    await turn(ws, 'Thanks.');
    const messages = llm.requests.at(-1)!.body.messages as { role: string; content: string }[];
    expect(messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([
      'It is sunny.',
    ]);
    ws.close();
  });

  it('says nothing but the answer when it comes in time', async () => {
    const ws = await voiceSession(engine.wsUrl);
    llm.enqueue(thinking(100, 'It is sunny.'));
    await turn(ws, 'Should I take an umbrella?');
    expect(synthesised(server)).toEqual(['It is sunny.']);
    ws.close();
  });

  it("says one phrase, in the session's language, when the model thinks and then calls a slow tool", async () => {
    const ws = await voiceSession(engine.wsUrl, { language: 'it' });
    llm.enqueue(thinking(800, xmlCall('weather', {})), sseText(['Sole, 21 gradi.']));
    const end = await turn(ws, 'Che tempo fa?');
    expect(synthesised(server)).toEqual(['Un momento.', 'Sole, 21 gradi.']);
    expect(end).toEqual({ type: 'assistant_end', text: 'Sole, 21 gradi.' });
    ws.close();
  });
});
