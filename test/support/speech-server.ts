import { Engine, openAiSpeech } from './engine.js';
import { FakeLlm } from './fake-llm.js';
import { RecordingServer } from './recording-server.js';
import type { TlsOptions } from './tls.js';

/**
 * A real OpenAI-compatible speech server on loopback: each synthesis (`/audio/speech`) answers
 * `seconds` of 24 kHz PCM, each transcription (`/audio/transcriptions`) `transcript`.
 */
export class FakeSpeech extends RecordingServer {
  seconds = 0.2;
  transcript = 'What is the weather like in Paris today?';

  /** With `tls`, it speaks HTTPS (and may ask for a client certificate). */
  constructor(tls?: TlsOptions) {
    super(tls);
    this.respondAsSpeech();
  }

  /** Answers as a speech server does (again, after a test answered otherwise). */
  respondAsSpeech(): void {
    this.respond((req, res) => {
      if (req.path === '/audio/transcriptions')
        return void res.end(JSON.stringify({ text: this.transcript }));
      res
        .writeHead(200, { 'Content-Type': 'audio/pcm' })
        .end(Buffer.alloc(Math.round(this.seconds * 24000) * 2, 7));
    });
  }

  /** The texts synthesised, in order. */
  inputs(): string[] {
    return this.requests
      .filter((r) => r.path === '/audio/speech')
      .map((r) => (JSON.parse(r.body) as { input: string }).input);
  }
}

/**
 * The real engine speaking through a FakeSpeech, with a fake LLM, for one describe block (`env`
 * added to the engine's; a function is called as the engine starts, after the block's earlier
 * `beforeAll`s, so that it may name their servers); both fakes reset, and the speech 0.2 s a sentence, before each test.
 */
export function useVoiceRig(env: Record<string, string> | (() => Record<string, string>) = {}) {
  const rig = { llm: new FakeLlm(), speech: new FakeSpeech() } as {
    llm: FakeLlm;
    speech: FakeSpeech;
    engine: Engine;
  };
  beforeAll(async () => {
    const base = await rig.speech.start();
    rig.engine = await Engine.start({
      LLM_BASE_URL: await rig.llm.start(),
      LLM_MODEL: 'm',
      ...openAiSpeech(base),
      ...(typeof env === 'function' ? env() : env),
    });
  });
  afterAll(async () => {
    await rig.engine?.stop();
    await Promise.all([rig.llm.stop(), rig.speech.stop()]);
  });
  beforeEach(() => {
    rig.llm.reset();
    rig.speech.requests.length = 0;
    rig.speech.seconds = 0.2;
  });
  return rig;
}
