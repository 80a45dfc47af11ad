import { CachedTtsEngine } from './cached-tts.engine.js';
import { TtsEngine, type SynthesisRequest } from './tts-engine.js';

/** A TTS engine that says each text as its bytes, in two chunks, and counts what it was asked. */
class CountingTts extends TtsEngine {
  readonly provider = 'openai' as const;
  readonly sampleRate = 24000;
  readonly asked: string[] = [];
  fail = false;
  async *synthesize({ text }: SynthesisRequest): AsyncIterable<Buffer> {
    this.asked.push(text);
    await Promise.resolve(); // a server's answer comes later
    const pcm = Buffer.from(text.padEnd(8, '.'));
    yield pcm.subarray(0, 4);
    if (this.fail) throw new Error('TTS server down');
    yield pcm.subarray(4);
  }
}

const request = (text: string, voice = '', signal = new AbortController().signal) => ({
  text,
  voice,
  language: 'en',
  signal,
});

async function say(engine: TtsEngine, req: SynthesisRequest): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of engine.synthesize(req)) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

describe('CachedTtsEngine', () => {
  it('keeps a sentence from its second synthesis, then says it with no request', async () => {
    const inner = new CountingTts();
    let hits = 0;
    const tts = new CachedTtsEngine(inner, 1024, () => hits++);
    for (let i = 0; i < 4; i++) expect(await say(tts, request('One moment.'))).toBe('One moment.');
    expect(inner.asked).toEqual(['One moment.', 'One moment.']);
    expect(hits).toBe(2);
    // Said once, an answer's sentence is not kept; another voice is another sentence.
    await say(tts, request('It is sunny in Rome.'));
    await say(tts, request('One moment.', 'alloy'));
    expect(inner.asked).toHaveLength(4);
    expect(tts.provider).toBe('openai');
    expect(tts.sampleRate).toBe(24000);
  });

  it('keeps nothing of a synthesis cut short or failed', async () => {
    const inner = new CountingTts();
    const tts = new CachedTtsEngine(inner, 1024);
    await say(tts, request('Hello there.'));
    const cut = new AbortController();
    for await (const chunk of tts.synthesize(request('Hello there.', '', cut.signal))) {
      expect(chunk.length).toBeGreaterThan(0);
      cut.abort();
    }
    inner.fail = true;
    await expect(say(tts, request('Hello there.'))).rejects.toThrow('TTS server down');
    inner.fail = false;
    await say(tts, request('Hello there.'));
    expect(inner.asked).toHaveLength(4);
    await say(tts, request('Hello there.'));
    expect(inner.asked).toHaveLength(4);
  });

  it('holds at most its size, and no sentence over an eighth of it', async () => {
    const inner = new CountingTts();
    const tts = new CachedTtsEngine(inner, 64);
    const long = 'A sentence longer than eight bytes.';
    for (let i = 0; i < 3; i++) await say(tts, request(long));
    expect(inner.asked).toHaveLength(3);
    // Eight-byte phrases: 64 bytes hold eight of them, the two used longest ago let go.
    const phrases = Array.from({ length: 10 }, (_, i) => `P${i}.`);
    for (const phrase of [...phrases, ...phrases]) await say(tts, request(phrase));
    const before = inner.asked.length;
    for (const phrase of phrases.slice(2)) await say(tts, request(phrase));
    expect(inner.asked.length).toBe(before);
    await say(tts, request('P0.'));
    expect(inner.asked.slice(before)).toEqual(['P0.']);
  });
});
