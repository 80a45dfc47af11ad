import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { spokenTurn } from '../../test/support/recording-tts.js';
import type { SpeechOutcome } from '../metrics/speech-metrics.js';
import { dropJob, synthesize, type Job } from './speech-job.js';
import { TtsEngine, type SynthesisRequest } from './tts-engine.js';

/**
 * A speech server streaming each text as 10 chunks, 30 ms apart, as long as its request is not
 * aborted; the requests' signals kept by text.
 */
class StreamingTts extends TtsEngine {
  readonly provider = 'openai' as const;
  readonly sampleRate = 1000;
  readonly signals = new Map<string, AbortSignal>();
  async *synthesize({ text, signal }: SynthesisRequest): AsyncIterable<Buffer> {
    this.signals.set(text, signal);
    for (let i = 0; i < 10 && !signal.aborted; i++) {
      await sleep(30);
      yield Buffer.alloc(20, 1);
    }
  }
}

const newJob = (text: string): Job => ({
  sentence: text,
  text,
  chunks: [],
  done: false,
  started: true,
});

describe("a sentence's synthesis", () => {
  it('ends when the sentence is dropped, as cancelled, its turn going on', async () => {
    const tts = new StreamingTts();
    const turn = new AbortController();
    const outcomes: SpeechOutcome[] = [];
    const job = newJob('Pay 120 euros?');
    const options = { voice: '', language: 'en', signal: turn.signal };
    const synthesis = synthesize(
      job,
      tts,
      { ...options, onSynthesized: (o) => outcomes.push(o) },
      0,
    );
    await sleep(100);
    dropJob(job);
    await synthesis;
    expect(tts.signals.get('Pay 120 euros?')!.aborted).toBe(true);
    expect(job.chunks.length).toBeLessThan(10);
    expect(job).toMatchObject({ done: true, stale: true });
    expect(job.error).toBeUndefined();
    expect(outcomes).toEqual(['cancelled']);
    expect(turn.signal.aborted).toBe(false);

    // The next sentence of the turn is said whole, and leaves no listener on the turn's signal.
    const next = newJob('Done.');
    await synthesize(next, tts, options, 1);
    expect(next.chunks).toHaveLength(10);
    expect(tts.signals.get('Done.')!.aborted).toBe(false);
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
  });

  it('ends with its turn, cut short', async () => {
    const tts = new StreamingTts();
    const turn = new AbortController();
    const job = newJob('I will check.');
    const synthesis = synthesize(job, tts, { voice: '', language: 'en', signal: turn.signal }, 0);
    await sleep(100);
    turn.abort();
    await synthesis;
    expect(tts.signals.get('I will check.')!.aborted).toBe(true);
    expect(job.chunks.length).toBeLessThan(10);
  });

  it("of a question the user answers while it is synthesised ends, the answer's said whole", async () => {
    const tts = new StreamingTts();
    const { turn$, answered, sent: said } = spokenTurn(tts);
    const call = { id: 'c1', name: 'pay', arguments: {} };
    turn$.next({ type: 'tool_call', ...call });
    turn$.next({ type: 'tool_confirm', ...call, prompt: 'Pay 120 euros? Press 1.' });
    await sleep(100);
    answered.next('c1');
    turn$.next({ type: 'tool_result', ...call, ok: true, ms: 5 });
    turn$.next({ type: 'assistant_delta', text: 'Done.' });
    turn$.complete();
    const events = await said;
    expect(tts.signals.get('Pay 120 euros? Press 1.')!.aborted).toBe(true);
    expect(tts.signals.get('Done.')!.aborted).toBe(false);
    // "Done." whole (10 chunks), and little of the question.
    const audio = events.filter((e) => e.type === 'audio').length;
    expect(audio).toBeGreaterThanOrEqual(10);
    expect(audio).toBeLessThan(15);
    expect(events.at(-1)).toEqual({ type: 'audio_end' });
  });
});
