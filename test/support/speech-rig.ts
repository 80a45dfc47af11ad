import { Engine } from './engine.js';
import { FakeLlm } from './fake-llm.js';
import { RecordingServer, type Handler } from './recording-server.js';
import { writeToolsFile } from './tools-file.js';
import type { Msg } from './ws-client.js';

export const audio = (msgs: Msg[]) => msgs.filter((m) => m.type === 'audio');

/** What the fake speech server does unless a test says otherwise (set again before each test). */
const asUsual = () => ({
  /** Seconds of audio the fake TTS returns for an input. */
  secondsFor: (() => 0.2) as (input: string) => number,
  /** What the fake STT server recognises; null: it fails with HTTP 500. */
  heard: 'What is the weather in Paris?' as string | null,
  /** The transcription's Content-Type when the fake STT server answers its text alone, not JSON. */
  plain: false as string | false,
  /** The fake TTS server fails with HTTP 500. */
  ttsDown: false,
  /** How long the fake speech server takes to answer. */
  delayMs: 0,
});

/**
 * For a describe block: an engine whose speech is an OpenAI-compatible TTS and STT server (one
 * fake, `speech`), with a `get_weather` tool; what the fake server does is set per test (reset
 * before each).
 */
export function useSpeechRig() {
  const rig = {
    llm: new FakeLlm(),
    speech: new RecordingServer(),
    weather: new RecordingServer(),
    engine: undefined as unknown as Engine,
    ...asUsual(),
    /** The texts the TTS server was asked to speak. */
    ttsInputs: () =>
      rig.speech.requests
        .filter((r) => r.path === '/audio/speech')
        .map((r) => JSON.parse(r.body).input as string),
  };
  const answer: Handler = (req, res) => {
    if (req.path === '/audio/transcriptions') {
      if (rig.heard === null) return void res.writeHead(500).end('recogniser crashed');
      if (rig.plain) return void res.writeHead(200, { 'Content-Type': rig.plain }).end(rig.heard);
      return void res.end(JSON.stringify({ text: rig.heard }));
    }
    if (rig.ttsDown) return void res.writeHead(500).end('voice unavailable');
    const { input } = JSON.parse(req.body) as { input: string };
    res
      .writeHead(200, { 'Content-Type': 'audio/pcm' })
      .end(Buffer.alloc(Math.round(rig.secondsFor(input) * 24000) * 2, 7));
  };
  beforeAll(async () => {
    const base = await rig.speech.start();
    const tools = await rig.weather.start();
    rig.engine = await Engine.start({
      LLM_BASE_URL: await rig.llm.start(),
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        { name: 'get_weather', url: `${tools}/{city}`, method: 'GET' },
      ]),
      TTS_PROVIDER: 'openai',
      TTS_BASE_URL: base,
      STT_BASE_URL: base,
      STT_API_KEY: 'stt-secret',
      STT_MODEL: 'large-v3',
      STT_MAX_SECONDS: '1',
      SPEECH_AUDIO_LEAD_MS: '0',
    });
    rig.speech.respond((req, res) => void setTimeout(() => answer(req, res), rig.delayMs));
  });
  afterAll(async () => {
    await rig.engine?.stop();
    await rig.llm.stop();
    await rig.speech.stop();
    await rig.weather.stop();
  });
  beforeEach(() => {
    rig.llm.reset();
    rig.speech.requests.length = 0;
    Object.assign(rig, asUsual());
  });
  return rig;
}
