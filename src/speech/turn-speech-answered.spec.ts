import { setTimeout as sleep } from 'node:timers/promises';
import type { Subject } from 'rxjs';
import { spokenTurn } from '../../test/support/recording-tts.js';
import type { TurnEvent } from '../orchestrator/protocol/server-events.js';
import type { SpeechEvent } from './speak-options.js';
import { TtsEngine } from './tts-engine.js';

/** At 1000 Hz: each text's audio lasts `ms` by `lengths`, every byte of it its own `marks` byte. */
class MarkedTts extends TtsEngine {
  readonly provider = 'openai' as const;
  readonly sampleRate = 1000;
  constructor(private readonly sounds: Record<string, { ms: number; mark: number }>) {
    super();
  }
  async *synthesize({ text }: { text: string }): AsyncIterable<Buffer> {
    const { ms, mark } = this.sounds[text]!;
    yield await Promise.resolve(Buffer.alloc(ms * 2, mark));
  }
}

const PROMPT = 'Pay 120 euros? Press 1 to confirm, 2 to cancel.';
const tts = new MarkedTts({
  [PROMPT]: { ms: 1000, mark: 1 },
  'I will pay Ada.': { ms: 600, mark: 2 },
  'Done.': { ms: 400, mark: 3 },
  'Sure, take your time.': { ms: 400, mark: 4 },
});
const call = { id: 'c1', name: 'pay', arguments: { amount: 120 } };
const asking: TurnEvent[] = [
  { type: 'tool_call', ...call },
  { type: 'tool_confirm', ...call, prompt: PROMPT },
];

/**
 * A turn's speech paced at playback speed (no lead): `events` now, `answer()` (which may send
 * more), then the call's result and "Done.". What it sent, in order: `1`, `2`, `3`, `4` for each
 * chunk of audio by its text, `clear`, `end`.
 */
async function speech(
  events: TurnEvent[],
  answer: (answered: Subject<string>, turn$: Subject<TurnEvent>) => Promise<void>,
) {
  const {
    turn$,
    answered,
    sent: said,
  } = spokenTurn(tts, {
    leadMs: 0,
    holdPhrase: 'Sure, take your time.',
  });
  for (const event of events) turn$.next(event);
  await answer(answered, turn$);
  turn$.next({ type: 'tool_result', ...call, ok: true, ms: 5 });
  turn$.next({ type: 'assistant_delta', text: 'Done.' });
  turn$.complete();
  return (await said).map(sent);
}

const sent = (event: SpeechEvent): string => {
  if (event.type === 'audio') return String(event.data[0]);
  return event.type === 'audio_clear' ? 'clear' : event.type === 'audio_end' ? 'end' : event.type;
};

describe('a question answered while the agent says it', () => {
  it('is cut: the rest of its audio is not sent, and the client drops what it has not played', async () => {
    // Five chunks of 200 ms, paced: by 450 ms three have gone, the third still playing.
    const got = await speech(asking, async (answered) => {
      await sleep(450);
      answered.next('c1');
    });
    const prompt = got.filter((s) => s === '1').length;
    expect(prompt).toBeGreaterThanOrEqual(2);
    expect(prompt).toBeLessThan(5);
    // Nothing of it after the clear; the answer whole after it.
    expect(got.slice(got.indexOf('clear'))).toEqual(['clear', '3', '3', 'end']);
  });

  it('is not said at all when answered before its audio began, and what came before plays on', async () => {
    const text: TurnEvent = { type: 'assistant_delta', text: 'I will pay Ada.' };
    const got = await speech([text, ...asking], async (answered) => {
      await sleep(250);
      answered.next('c1');
    });
    expect(got).toEqual(['2', '2', '2', '3', '3', 'end']);
  });

  it("is said whole when another call's question is answered, and nothing is dropped once it has played", async () => {
    const got = await speech(asking, async (answered) => {
      await sleep(250);
      answered.next('c2');
      await sleep(1100);
      answered.next('c1');
    });
    expect(got).toEqual(['1', '1', '1', '1', '1', '3', '3', 'end']);
  });

  it('drops the hold phrase said after it too, unless another call it was said for still waits', async () => {
    const answer = async (answered: Subject<string>) => {
      await sleep(50);
      answered.next('c1');
    };
    // Asked to wait ("one moment") before answering: the hold phrase waits behind the prompt.
    const held = (ids: string[]): TurnEvent[] => [...asking, { type: 'tool_held', ids }];
    expect(await speech(held(['c1']), answer)).not.toContain('4');
    expect((await speech(held(['c1', 'c3']), answer)).filter((s) => s === '4')).toEqual(['4', '4']);
  });

  it('starts over when asked again while it is said ("sorry?"), what was left of it not said first', async () => {
    const got = await speech(asking, async (answered, turn$) => {
      await sleep(450);
      turn$.next(asking[1]!);
      await sleep(1500); // said again whole, and played
      answered.next('c1');
    });
    const clearAt = got.indexOf('clear');
    expect(got.slice(0, clearAt).filter((s) => s === '1').length).toBeLessThan(5);
    expect(got.slice(clearAt)).toEqual(['clear', '1', '1', '1', '1', '1', '3', '3', 'end']);
  });
});
