import { FallbackSttEngine } from './fallback-stt.engine.js';
import { SttEngine, type Transcribed } from './stt-engine.js';

/** A server that hears `text`, or fails. */
class FakeStt extends SttEngine {
  readonly provider = 'openai' as const;
  asked = 0;
  failing: string | false = false;
  constructor(private readonly text: string) {
    super();
  }
  async transcribe(): Promise<Transcribed> {
    this.asked++;
    await Promise.resolve();
    if (this.failing) throw new Error(this.failing);
    return { text: this.text };
  }
}

describe('FallbackSttEngine (STT_FALLBACK_BASE_URL)', () => {
  const setup = (pauseMs = 30_000) => {
    const server = new FakeStt('from the server');
    const fallback = new FakeStt('from the fallback');
    const events: string[] = [];
    const engine = new FallbackSttEngine(
      server,
      fallback,
      {
        fellBack: (why) => events.push(`fell back: ${why}`),
        recovered: () => events.push('recovered'),
        heard: () => events.push('heard by the fallback'),
      },
      pauseMs,
    );
    const hear = (signal = new AbortController().signal) =>
      engine.transcribe(Buffer.alloc(320), 'en', signal);
    return { server, fallback, events, hear };
  };

  it('hears with the server while it works, with the fallback once it fails, and leaves it alone a while', async () => {
    const { server, fallback, events, hear } = setup();
    expect(await hear()).toEqual({ text: 'from the server' });
    server.failing = 'speech-to-text server answered HTTP 503: overloaded';
    expect(await hear()).toEqual({ text: 'from the fallback' });
    server.failing = false;
    expect(await hear()).toEqual({ text: 'from the fallback' });
    expect([server.asked, fallback.asked]).toEqual([2, 2]);
    expect(events).toEqual([
      'fell back: speech-to-text server answered HTTP 503: overloaded',
      'heard by the fallback',
      'heard by the fallback',
    ]);
  });

  it('tries the server again after the pause, and says when it hears again', async () => {
    const { server, events, hear } = setup(20);
    server.failing = 'down';
    await hear();
    server.failing = false;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await hear()).toEqual({ text: 'from the server' });
    expect(events.at(-1)).toBe('recovered');
  });

  it("lets an utterance the user cut, and the fallback's own failure, through", async () => {
    const { server, fallback, hear } = setup();
    server.failing = 'down';
    const cut = new AbortController();
    cut.abort();
    await expect(hear(cut.signal)).rejects.toThrow('down');
    expect(fallback.asked).toBe(0);
    fallback.failing = 'fallback speech-to-text server answered HTTP 500: no';
    await expect(hear()).rejects.toThrow('fallback speech-to-text server answered HTTP 500');
  });
});
