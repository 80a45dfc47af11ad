import { lastValueFrom, Subject, tap, toArray } from 'rxjs';
import type { TurnEvent } from '../orchestrator/protocol/server-events.js';
import type { SynthesisRequest, TtsEngine } from './tts-engine.js';
import { RecordingTts } from '../../test/support/recording-tts.js';
import type { SpeechEvent } from './speak-options.js';
import { speakTurn } from './turn-speech.js';

/** The speech of a turn made of `events`; `spoken` collects what the answer said. */
function speakEvents(
  tts: TtsEngine,
  events: TurnEvent[],
  signal = new AbortController().signal,
  spoken: string[] = [],
) {
  const turn$ = new Subject<TurnEvent>();
  const out = lastValueFrom(
    speakTurn(turn$, tts, {
      voice: '',
      language: 'en',
      maxSentenceChars: 200,
      signal,
      onSpoken: (s) => spoken.push(s),
      unclearPhrase: "Sorry, I didn't catch that.",
      holdPhrase: 'Sure, take your time.',
      confirmPhrase: 'Shall I go ahead?',
      stillHerePhrase: "I'm still here, one moment.",
    }).pipe(toArray()),
  );
  for (const event of events) turn$.next(event);
  turn$.complete();
  return out;
}

/** The speech of a turn whose answer is `deltas`. */
function speak(tts: TtsEngine, deltas: string[], signal?: AbortSignal, spoken?: string[]) {
  const text = deltas.map((t) => ({ type: 'assistant_delta' as const, text: t }));
  const end = { type: 'assistant_end' as const, text: deltas.join('') };
  return speakEvents(tts, [...text, end], signal, spoken);
}

const audioText = (events: SpeechEvent[]) =>
  events.flatMap((e) => (e.type === 'audio' ? [e.data.toString()] : [])).join('|');

describe('speakTurn', () => {
  it('does not read code aloud, even when its fence spans several sentences', async () => {
    const tts = new RecordingTts();
    await speak(tts, [
      'Here is the fix. ```python\nx = 1. ',
      'print(x)\n``` Run it. Inline `ls` is fine. ```sh\nrm -rf /tmp/a.\n``` Done.',
    ]);
    expect(tts.texts.join(' ')).not.toMatch(/x = 1|print|rm -rf|python/);
    expect(tts.texts.join(' ')).toContain('Run it.');
    expect(tts.texts.join(' ')).toContain('Inline ls is fine.');
    expect(tts.texts.join(' ')).toContain('Done.');
  });

  it("asks for each sentence with its place in the answer, so that a shared synthesiser serves every answer's first sentences first", async () => {
    const tts = new RecordingTts();
    await speak(tts, ['One. ', 'Two. ', 'Three. ', 'Four.']);
    expect(tts.priorities).toEqual([0, 1, 2, 3]);
  });

  it('stops within a chunk when the turn is cancelled by something received meanwhile (a barge-in)', async () => {
    // One sentence of 10 chunks' audio, sent as fast as it comes: between chunks the engine
    // still reads what arrives, here a cancel due on the event loop's next turn.
    const tts = new (class extends RecordingTts {
      override async *synthesize(): AsyncIterable<Buffer> {
        yield await Promise.resolve(Buffer.alloc(4000)); // 2 s at 1000 Hz: 10 chunks of 200 ms
      }
    })();
    const cancel = new AbortController();
    const turn$ = new Subject<TurnEvent>();
    const speech$ = speakTurn(turn$, tts, {
      voice: '',
      language: 'en',
      maxSentenceChars: 200,
      signal: cancel.signal,
    });
    // The cancel arrives as the first chunk goes out.
    const events = lastValueFrom(
      speech$.pipe(
        tap((e) => e.type === 'audio' && e.seq === 0 && setImmediate(() => cancel.abort())),
        toArray(),
      ),
    );
    turn$.next({ type: 'assistant_delta', text: 'A long sentence.' });
    turn$.complete();
    const counted = (await events).filter((e) => e.type === 'audio').length;
    expect(counted).toBeLessThanOrEqual(2);
  });

  it('synthesises sentence by sentence and keeps the order even when a later one is faster', async () => {
    const tts = new RecordingTts((t) => (t.startsWith('First') ? 60 : 0));
    const spoken: string[] = [];
    const events = await speak(
      tts,
      ['First one is slow. ', 'Second. ', 'Third.'],
      undefined,
      spoken,
    );
    expect(audioText(events)).toBe('First one is slow.|Second..|Third...');
    expect(events.at(-1)).toEqual({ type: 'audio_end' });
    expect(events.filter((e) => e.type === 'audio').map((e) => (e as { seq: number }).seq)).toEqual(
      [0, 1, 2],
    );
    expect(spoken).toEqual(['First one is slow.', 'Second.', 'Third.']);
  });

  it("says a call's confirmation prompt as it is, but keeps it out of what the answer said", async () => {
    const tts = new RecordingTts();
    const spoken: string[] = [];
    const call = { id: 'c1', name: 'cancel', arguments: {} };
    const out = speakEvents(
      tts,
      [
        { type: 'assistant_delta', text: 'I can cancel it. ' },
        { type: 'tool_call', ...call },
        // Written as a model would not (code marks): a prompt is the admin's text, read as it is.
        { type: 'tool_confirm', ...call, prompt: 'Cancel ```order``` 7?' },
        { type: 'assistant_end', text: 'I can cancel it. ' },
      ],
      undefined,
      spoken,
    );
    expect(audioText(await out)).toBe('I can cancel it.|Cancel order 7?');
    expect(spoken).toEqual(['I can cancel it.']);
  });

  it('asks SPEECH_CONFIRM_PHRASE for a call awaiting approval that has no prompt', async () => {
    const tts = new RecordingTts();
    const call = { id: 'c1', name: 'send_mail', arguments: {} };
    const out = speakEvents(tts, [
      { type: 'assistant_delta', text: 'I will send it to Ada.' },
      { type: 'tool_call', ...call },
      { type: 'tool_confirm', ...call },
      { type: 'tool_result', ...call, ok: true, ms: 5 },
      { type: 'assistant_end', text: 'I will send it to Ada.' },
    ]);
    expect(audioText(await out)).toBe('I will send it to Ada.|Shall I go ahead?');
  });

  it('says SPEECH_STILL_HERE_PHRASE when the caller asks whether the agent is there', async () => {
    const tts = new RecordingTts();
    const call = { id: 'c1', name: 'meteo', arguments: {} };
    const out = speakEvents(tts, [
      { type: 'tool_call', ...call },
      { type: 'tool_still_running', ids: ['c1'] },
      { type: 'tool_result', ...call, ok: true, ms: 5 },
      { type: 'assistant_delta', text: 'Sunny.' },
      { type: 'assistant_end', text: 'Sunny.' },
    ]);
    expect(audioText(await out).split('|')).toEqual([
      "I'm still here, one moment.",
      expect.stringMatching(/^Sunny/),
    ]);
  });

  it("says a call's question with a choice's options, and sorry each time it is asked again", async () => {
    const tts = new RecordingTts();
    const spoken: string[] = [];
    const call = { id: 'c1', name: 'order', arguments: {} };
    const answer = { type: 'choice' as const, choices: ['Small', 'Large'] };
    const question = { type: 'tool_question' as const, ...call, prompt: 'Which size?', answer };
    // (Asked again in a turn of its own: asked again at once, the first asking is not said.)
    const said = async (asked: TurnEvent) =>
      audioText(
        await speakEvents(
          tts,
          [
            { type: 'tool_call', ...call },
            asked,
            { type: 'tool_answered', id: 'c1', value: 'Large' },
            { type: 'assistant_delta', text: 'Done.' },
            { type: 'assistant_end', text: 'Done.' },
          ],
          undefined,
          spoken,
        ),
      ).split('|');
    const done = expect.stringMatching(/^Done/);
    expect(await said(question)).toEqual(['Which size? Small or Large?', done]);
    expect(await said({ ...question, unclear: 'none' })).toEqual([
      "Sorry, I didn't catch that. Which size? Small or Large?",
      done,
    ]);
    expect(spoken).toEqual(['Done.', 'Done.']);
  });

  it('says the hold phrase when the user asks the waiting question to wait', async () => {
    const tts = new RecordingTts();
    const spoken: string[] = [];
    const call = { id: 'c1', name: 'book', arguments: {} };
    const answer = { type: 'integer' as const };
    const out = speakEvents(
      tts,
      [
        { type: 'tool_call', ...call },
        { type: 'tool_question', ...call, prompt: 'How many guests?', answer },
        { type: 'tool_held', ids: ['c1'] },
        { type: 'tool_answered', id: 'c1', value: 4 },
        { type: 'assistant_delta', text: 'Booked.' },
        { type: 'assistant_end', text: 'Booked.' },
      ],
      undefined,
      spoken,
    );
    expect(audioText(await out).split('|')).toEqual([
      'How many guests?',
      'Sure, take your time.',
      expect.stringMatching(/^Booked/),
    ]);
    // Not the model's words: kept out of what the answer said.
    expect(spoken).toEqual(['Booked.']);
  });

  it("says a number's range when its question is asked again", async () => {
    const tts = new RecordingTts();
    const call = { id: 'c1', name: 'book', arguments: {} };
    const answer = { type: 'integer' as const, minimum: 1, maximum: 8 };
    const out = speakEvents(tts, [
      { type: 'tool_call', ...call },
      {
        type: 'tool_question',
        ...call,
        prompt: 'How many guests?',
        answer,
        unclear: '12 is over 8',
      },
      { type: 'assistant_end', text: '' },
    ]);
    expect(audioText(await out)).toBe("Sorry, I didn't catch that. How many guests? From 1 to 8.");
  });

  it('synthesises at most the sentence being sent and the next one at a time', async () => {
    let running = 0;
    let peak = 0;
    const tts = new (class extends RecordingTts {
      override async *synthesize(request: SynthesisRequest): AsyncIterable<Buffer> {
        peak = Math.max(peak, ++running);
        try {
          yield* super.synthesize(request);
        } finally {
          running--;
        }
      }
    })(() => 20);
    const events = await speak(tts, ['One. Two. Three. Four. Five. Six.']);
    expect(audioText(events).split('|')).toHaveLength(6);
    expect(peak).toBe(2);
  });

  it('reports a failing synthesis once a turn, and does not count its sentence as spoken', async () => {
    const tts = new (class extends RecordingTts {
      override async *synthesize(request: SynthesisRequest): AsyncIterable<Buffer> {
        if (request.text !== 'Fine.') throw new Error('voice unavailable');
        yield* super.synthesize(request);
      }
    })();
    const spoken: string[] = [];
    const events = await speak(tts, ['One. Two. Fine.'], undefined, spoken);
    expect(events.filter((e) => e.type === 'error')).toEqual([
      { type: 'error', code: 'tts_failed', message: 'speech synthesis failed: voice unavailable' },
    ]);
    expect(spoken).toEqual(['Fine.']);
  });

  it('cleans text before synthesis and skips what has nothing to say', async () => {
    const tts = new RecordingTts();
    await speak(tts, ['**Bold** move. ', '🎉 ', 'Visit https://x.y today.']);
    expect(tts.texts).toEqual(['Bold move.', 'Visit today.']);
  });

  it('stops at once on abort, drops queued audio and still ends with audio_end', async () => {
    const tts = new RecordingTts(() => 30);
    const controller = new AbortController();
    const turn$ = new Subject<TurnEvent>();
    const events: SpeechEvent[] = [];
    const done = new Promise<void>((resolve) =>
      speakTurn(turn$, tts, {
        voice: '',
        language: 'en',
        maxSentenceChars: 200,
        signal: controller.signal,
      }).subscribe({ next: (e) => events.push(e), complete: resolve }),
    );
    turn$.next({ type: 'assistant_delta', text: 'One. Two. Three. ' });
    controller.abort();
    await done;
    expect(events).toEqual([{ type: 'audio_end' }]);
  });
});
