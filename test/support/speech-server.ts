import { readFileSync } from 'node:fs';
import { Engine, openAiSpeech } from './engine.js';
import { FakeLlm } from './fake-llm.js';
import type { ServerResponse } from 'node:http';
import { RecordingServer, type RecordedRequest } from './recording-server.js';
import type { TlsOptions } from './tls.js';
import type { WsClient } from './ws-client.js';

/** A spoken sentence, PCM s16le 16 kHz mono (test/fixtures/audio/make-speech.mjs). */
export const SPEECH = readFileSync('test/fixtures/audio/speech-16k.pcm');

/**
 * A second of speech then 0.6 s of silence, sent at once: an utterance to a detector with
 * VAD_SILENCE_MS under 600 (a cough, a door, a word over the agent).
 */
export function soundOver(ws: WsClient): void {
  const audio = Buffer.concat([SPEECH.subarray(0, 16_000), Buffer.alloc(600 * 32)]);
  for (let at = 0; at < audio.length; at += 640)
    ws.socket.send(audio.subarray(at, at + 640), { binary: true });
}

/**
 * A real OpenAI-compatible speech server on loopback: each synthesis (`/audio/speech`) answers
 * `seconds` of 24 kHz PCM, each transcription (`/audio/transcriptions`) `transcript`.
 */
export class FakeSpeech extends RecordingServer {
  seconds = 0.2;
  transcript = 'What is the weather like in Paris today?';
  /** Transcriptions to answer first, one each, in order (then `transcript`). */
  readonly transcripts: string[] = [];
  /** The language said heard, as OpenAI names it ("spanish"), asked for with `verbose_json`. */
  heardIn: string | undefined;
  /** How long each answer waits before it is sent. */
  delayMs = 0;

  /** With `tls`, it speaks HTTPS (and may ask for a client certificate). */
  constructor(tls?: TlsOptions) {
    super(tls);
    this.respondAsSpeech();
  }

  /** Answers as a speech server does (again, after a test answered otherwise). */
  respondAsSpeech(): void {
    this.respond((req, res) =>
      this.delayMs > 0
        ? void setTimeout(() => this.answer(req, res), this.delayMs)
        : this.answer(req, res),
    );
  }

  private answer(req: RecordedRequest, res: ServerResponse): void {
    if (req.path === '/audio/transcriptions')
      return void res.end(
        JSON.stringify({
          text: this.transcripts.shift() ?? this.transcript,
          ...(req.body.includes('verbose_json') && { language: this.heardIn ?? 'english' }),
        }),
      );
    res
      .writeHead(200, { 'Content-Type': 'audio/pcm' })
      .end(Buffer.alloc(Math.round(this.seconds * 24000) * 2, 7));
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
    rig.speech.delayMs = 0;
  });
  return rig;
}

/**
 * A FakeSpeech for one describe block, started before the block's later `beforeAll`s (an engine
 * started there may name it: `openAiSpeech(fake.url())`), stopped after it.
 */
export function useFakeSpeech(): { speech: FakeSpeech; url: () => string } {
  const speech = new FakeSpeech();
  let base = '';
  beforeAll(async () => {
    base = await speech.start();
  });
  afterAll(() => speech.stop());
  return { speech, url: () => base };
}
