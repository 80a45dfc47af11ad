import { FallbackTtsEngine } from './fallback-tts.engine.js';
import { TtsEngine, type SynthesisRequest } from './tts-engine.js';

/** An engine whose sentences each give `chunks` of PCM, or fail as `fail` says. */
class FakeEngine extends TtsEngine {
  readonly provider = 'openai' as const;
  asked: string[] = [];
  fail: 'before' | 'after' | false = false;
  constructor(
    readonly sampleRate: number,
    private readonly chunk = Buffer.alloc(sampleRate * 2 * 0.1, 1),
  ) {
    super();
  }
  async *synthesize({ text }: SynthesisRequest): AsyncIterable<Buffer> {
    this.asked.push(text);
    await Promise.resolve();
    if (this.fail === 'before') throw new Error('TTS server answered HTTP 503: overloaded');
    yield this.chunk;
    if (this.fail === 'after') throw new Error('dropped');
  }
}

const request = (text: string, signal = new AbortController().signal): SynthesisRequest => ({
  text,
  voice: 'alloy',
  language: 'en',
  signal,
});

async function said(engine: TtsEngine, req: SynthesisRequest): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of engine.synthesize(req)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('FallbackTtsEngine (TTS_FALLBACK=espeak)', () => {
  const setup = (pauseMs = 30_000) => {
    const server = new FakeEngine(24_000);
    const espeak = new FakeEngine(22_050);
    const events: string[] = [];
    const engine = new FallbackTtsEngine(
      server,
      espeak,
      {
        fellBack: (why) => events.push(`fell back: ${why}`),
        recovered: () => events.push('recovered'),
        said: () => events.push('said by eSpeak'),
      },
      pauseMs,
    );
    return { server, espeak, events, engine };
  };

  it("says the server's sentences as they come while it works", async () => {
    const { server, espeak, events, engine } = setup();
    expect((await said(engine, request('Hello.'))).length).toBe(4800);
    expect([server.asked, espeak.asked, events]).toEqual([['Hello.'], [], []]);
    expect([engine.provider, engine.sampleRate]).toEqual(['openai', 24_000]);
  });

  it("says a sentence the server failed with eSpeak, at the server's rate, and leaves the server alone a while", async () => {
    const { server, espeak, events, engine } = setup();
    server.fail = 'before';
    const pcm = await said(engine, request('Your table is booked.'));
    // 0.1 s of eSpeak's 22 050 Hz speech, as 0.1 s at 24 kHz (the resampler's delay aside).
    expect(Math.abs(pcm.length / 2 - 2400)).toBeLessThan(100);
    expect(espeak.asked).toEqual(['Your table is booked.']);
    expect(events).toEqual([
      'fell back: TTS server answered HTTP 503: overloaded',
      'said by eSpeak',
    ]);
    server.fail = false;
    await said(engine, request('See you at eight.'));
    expect(server.asked).toEqual(['Your table is booked.']); // left alone
    expect(espeak.asked).toHaveLength(2);
  });

  it('tries the server again after the pause, and says when it speaks again', async () => {
    const { server, espeak, events, engine } = setup(20);
    server.fail = 'before';
    await said(engine, request('One.'));
    server.fail = false;
    await new Promise((resolve) => setTimeout(resolve, 30));
    await said(engine, request('Two.'));
    expect(server.asked).toEqual(['One.', 'Two.']);
    expect(espeak.asked).toEqual(['One.']);
    expect(events.at(-1)).toBe('recovered');
  });

  it('lets a failure after some audio through, and one of a sentence the user cut', async () => {
    const { server, espeak, engine } = setup();
    server.fail = 'after';
    await expect(said(engine, request('Half.'))).rejects.toThrow('dropped');
    server.fail = 'before';
    const cut = new AbortController();
    cut.abort();
    await expect(said(engine, request('Cut.', cut.signal))).rejects.toThrow('overloaded');
    expect(espeak.asked).toEqual([]);
  });
});
