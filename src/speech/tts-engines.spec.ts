import { getEventListeners } from 'node:events';
import { EspeakTtsEngine, espeakVoice } from './espeak-tts.engine.js';
import { OpenAiTtsEngine } from './openai-tts.engine.js';
import { OpenAiSttEngine } from './stt-engine.js';
import { parseEnv } from '../config/env.js';
import { RecordingServer } from '../../test/support/recording-server.js';

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const c of chunks) out.push(c);
  return out;
}

const signal = () => new AbortController().signal;

describe('EspeakTtsEngine (real eSpeak NG in WASM)', () => {
  const engine = new EspeakTtsEngine();
  afterAll(() => engine.onModuleDestroy());

  it.each([
    ['en', 'Hello, the weather in Paris is sunny.'],
    ['it', 'Ciao, a Roma oggi c’è il sole.'],
    ['es', '¿Qué tiempo hace en Madrid? Hace sol.'],
  ])('synthesises %s to 22.05 kHz 16-bit PCM', async (language, text) => {
    const chunks = await collect(
      engine.synthesize({ text, voice: '', language, signal: signal() }),
    );
    const pcm = Buffer.concat(chunks);
    const seconds = pcm.length / 2 / engine.sampleRate;
    expect(engine.sampleRate).toBe(22050);
    expect(pcm.length % 2).toBe(0);
    expect(seconds).toBeGreaterThan(0.8);
    expect(seconds).toBeLessThan(10);
    let energy = 0;
    for (let i = 0; i < pcm.length; i += 2) energy += Math.abs(pcm.readInt16LE(i));
    expect(energy / (pcm.length / 2)).toBeGreaterThan(100);
  });

  it('starts the worker, and compiles the WASM module, once for all sentences', () => {
    expect(engine.workerStarts).toBe(1);
  });

  it('gives identical audio for the same sentence every time (each run starts from fresh program state)', async () => {
    const text = 'The weather in Paris is sunny today.';
    const first = Buffer.concat(
      await collect(engine.synthesize({ text, voice: '', language: 'en', signal: signal() })),
    );
    await collect(
      engine.synthesize({ text: 'Ciao!', voice: '', language: 'it', signal: signal() }),
    );
    const again = Buffer.concat(
      await collect(engine.synthesize({ text, voice: '', language: 'en', signal: signal() })),
    );
    expect(again.equals(first)).toBe(true);
  });

  it("lets go of a turn's signal once each sentence is synthesised (a long answer adds no listeners)", async () => {
    const turn = new AbortController();
    for (let i = 0; i < 12; i++)
      await collect(
        engine.synthesize({
          text: `Sentence ${i}.`,
          voice: '',
          language: 'en',
          signal: turn.signal,
        }),
      );
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
  });

  it('picks voices from the language, and reports an unknown voice as an error', async () => {
    expect([
      espeakVoice('en', ''),
      espeakVoice('it-IT', ''),
      espeakVoice('es', ''),
      espeakVoice('en', 'en-gb'),
    ]).toEqual(['en-us', 'it', 'es', 'en-gb']);
    await expect(
      collect(engine.synthesize({ text: 'x', voice: 'zz-nope', language: 'en', signal: signal() })),
    ).rejects.toThrow(/voice does not exist/);
  });
});

describe('EspeakTtsEngine scheduling', () => {
  it('serves a waiting first sentence before later ones, and runs TTS_ESPEAK_WORKERS workers', async () => {
    const one = new EspeakTtsEngine(1);
    const done: string[] = [];
    const say = (text: string, priority: number) =>
      collect(one.synthesize({ text, voice: '', language: 'en', signal: signal(), priority })).then(
        () => done.push(text),
      );
    await Promise.all([
      say('A long sentence that keeps the only worker busy for a while.', 3),
      say('Later.', 9),
      say('First.', 0),
    ]);
    expect(done).toEqual([
      'A long sentence that keeps the only worker busy for a while.',
      'First.',
      'Later.',
    ]);
    await one.onModuleDestroy();

    const two = new EspeakTtsEngine(2);
    two.warmUp();
    expect(two.workerStarts).toBe(2);
    await two.onModuleDestroy();
  });
});

describe('OpenAI-compatible TTS and STT against a real loopback server', () => {
  const server = new RecordingServer();
  let base: string;
  beforeAll(async () => {
    base = await server.start();
  });
  afterAll(() => server.stop());
  beforeEach(() => (server.requests.length = 0));

  const config = () =>
    parseEnv({
      TTS_BASE_URL: base,
      TTS_API_KEY: 'tk',
      TTS_VOICE: 'af_heart',
      STT_BASE_URL: base,
      STT_MODEL: 'whisper-large',
    }).speech;

  it('posts /audio/speech with model, voice, input and pcm, and forwards the body as it streams', async () => {
    server.respond((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'audio/pcm' });
      res.write(Buffer.alloc(4801, 1)); // odd: a sample split across chunks
      setTimeout(() => res.end(Buffer.alloc(4799, 2)), 50);
    });
    const engine = new OpenAiTtsEngine(config());
    const chunks = await collect(
      engine.synthesize({ text: 'Hi there.', voice: 'af_heart', language: 'en', signal: signal() }),
    );
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.length % 2 === 0)).toBe(true);
    expect(Buffer.concat(chunks).length).toBe(9600);
    const [req] = server.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/audio/speech' });
    expect(req!.headers.authorization).toBe('Bearer tk');
    expect(JSON.parse(req!.body)).toEqual({
      model: 'tts-1',
      voice: 'af_heart',
      input: 'Hi there.',
      response_format: 'pcm',
    });
    expect(engine.sampleRate).toBe(24000);
  });

  it("asks for the voice 'alloy' when neither the session nor TTS_VOICE names one", async () => {
    server.respond((_req, res) => res.writeHead(200).end(Buffer.alloc(2)));
    const engine = new OpenAiTtsEngine(config());
    await collect(engine.synthesize({ text: 'Hi.', voice: '', language: 'en', signal: signal() }));
    expect(JSON.parse(server.requests[0]!.body)).toMatchObject({ voice: 'alloy' });
  });

  it('reports a TTS server error with its status', async () => {
    server.respond((_req, res) => res.writeHead(500).end('boom'));
    const engine = new OpenAiTtsEngine(config());
    await expect(
      collect(engine.synthesize({ text: 'x', voice: '', language: 'en', signal: signal() })),
    ).rejects.toThrow('TTS server answered HTTP 500: boom');
  });

  it('posts a 16 kHz mono WAV to /audio/transcriptions and returns the text', async () => {
    server.respond((_req, res) =>
      res.end(JSON.stringify({ text: ' What is the weather in Rome? ' })),
    );
    const engine = new OpenAiSttEngine(config());
    const text = await engine.transcribe(Buffer.alloc(32000), 'it-IT', signal());
    expect(text).toEqual({ text: 'What is the weather in Rome?' });
    const [req] = server.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/audio/transcriptions' });
    expect(req!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(req!.body).toContain('name="model"\r\n\r\nwhisper-large');
    expect(req!.body).toContain('name="language"\r\n\r\nit');
    expect(req!.body).toContain('filename="utterance.wav"');
    expect(req!.body).toContain('RIFF');
    expect(req!.body).toContain('WAVEfmt ');
  });

  it('takes a plain-text answer as the text, and refuses JSON without a text field', async () => {
    const engine = new OpenAiSttEngine(config());
    server.respond((_req, res) => res.end(' Ciao. \n'));
    expect(await engine.transcribe(Buffer.alloc(3200), 'it', signal())).toEqual({ text: 'Ciao.' });
    server.respond((_req, res) => res.end('{"transcript":"Ciao."}'));
    await expect(engine.transcribe(Buffer.alloc(3200), 'it', signal())).rejects.toThrow(
      'speech-to-text server answered without a "text" field',
    );
  });

  it('leaves the language to the server without a hint, and reads the one it heard', async () => {
    const engine = new OpenAiSttEngine(config());
    server.respond((_req, res) =>
      res.end(JSON.stringify({ text: ' ¿Qué tiempo hace? ', language: 'spanish', duration: 1.2 })),
    );
    expect(await engine.transcribe(Buffer.alloc(3200), 'en', signal(), true)).toEqual({
      text: '¿Qué tiempo hace?',
      language: 'es',
    });
    const [req] = server.requests;
    expect(req!.body).not.toContain('name="language"');
    expect(req!.body).toContain('name="response_format"\r\n\r\nverbose_json');
    // A server that names no language it knows: the words alone.
    server.respond((_req, res) => res.end(JSON.stringify({ text: 'Hi.', language: 'klingon' })));
    expect(await engine.transcribe(Buffer.alloc(3200), 'en', signal(), true)).toEqual({
      text: 'Hi.',
    });
  });

  it('gives up asking a server that refuses verbose_json, and sends the hint again', async () => {
    const engine = new OpenAiSttEngine(config());
    // OpenAI's gpt-4o-transcribe answers json or text only.
    server.respond((req, res) =>
      req.body.includes('verbose_json')
        ? res.writeHead(400).end(
            JSON.stringify({
              error: {
                message:
                  "response_format 'verbose_json' is not compatible with model 'gpt-4o-transcribe'. Use 'json' or 'text' instead.",
              },
            }),
          )
        : res.end(JSON.stringify({ text: 'Ciao.' })),
    );
    expect(await engine.transcribe(Buffer.alloc(3200), 'it', signal(), true)).toEqual({
      text: 'Ciao.',
    });
    expect(await engine.transcribe(Buffer.alloc(3200), 'it', signal(), true)).toEqual({
      text: 'Ciao.',
    });
    // Asked once, then the hint alone: each utterance costs one request again.
    expect(server.requests.map((r) => /name="language"\r\n\r\nit\r\n/.test(r.body))).toEqual([
      false,
      true,
      true,
    ]);
  });

  it('reports an STT server error', async () => {
    server.respond((_req, res) => res.writeHead(400).end('{"error":"bad audio"}'));
    await expect(
      new OpenAiSttEngine(config()).transcribe(Buffer.alloc(3200), 'en', signal()),
    ).rejects.toThrow(/HTTP 400/);
  });
});
