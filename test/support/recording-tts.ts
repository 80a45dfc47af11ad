/** The speech's unit tests: a synthesiser that records what it was asked to say, a turn driven. */
import { lastValueFrom, Subject, toArray } from 'rxjs';
import type { TurnEvent } from '../../src/orchestrator/protocol/server-events.js';
import type { SpeakOptions } from '../../src/speech/speak-options.js';
import { TtsEngine, type SynthesisRequest } from '../../src/speech/tts-engine.js';
import { speakTurn } from '../../src/speech/turn-speech.js';

/**
 * At 1000 Hz, each text's audio is the text itself (padded to 8 bytes: 4 ms), after
 * `delayFor(text)` milliseconds (0: the next microtask); the texts and priorities asked for kept.
 */
export class RecordingTts extends TtsEngine {
  readonly provider = 'openai' as const;
  readonly sampleRate = 1000;
  readonly texts: string[] = [];
  readonly priorities: (number | undefined)[] = [];
  constructor(private readonly delayFor: (text: string) => number = () => 0) {
    super();
  }
  async *synthesize(request: SynthesisRequest): AsyncIterable<Buffer> {
    this.texts.push(request.text);
    this.priorities.push(request.priority);
    const ms = this.delayFor(request.text);
    await (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());
    yield Buffer.from(request.text.padEnd(8, '.'));
  }
}

/**
 * A voice turn's speech driven event by event (fake timers or real), `options` over the defaults:
 * what was synthesised (`tts.texts`), what the answer said (`spoken`); `answer(id)`: the user
 * answers call `id`'s question; `end()`: the turn ends, and its speech.
 */
export function drivenTurn(options: Partial<SpeakOptions> = {}) {
  const tts = new RecordingTts();
  const spoken: string[] = [];
  const {
    turn$,
    answered,
    sent: done,
  } = spokenTurn(tts, {
    onSpoken: (s) => spoken.push(s),
    ...options,
  });
  const end = async () => {
    turn$.next({ type: 'assistant_end', text: '' });
    turn$.complete();
    await jest.runAllTimersAsync();
    await done;
  };
  const send = (event: TurnEvent) => turn$.next(event);
  return { tts, spoken, send, answer: (id: string) => answered.next(id), end };
}

/**
 * `tts` speaking a turn whose events are `turn$`'s, `options` over the defaults; `answered`: the
 * calls whose question the user answers; `sent`: all the speech sent, at its end.
 */
export function spokenTurn(tts: TtsEngine, options: Partial<SpeakOptions> = {}) {
  const turn$ = new Subject<TurnEvent>();
  const answered = new Subject<string>();
  const defaults = { voice: '', language: 'en', maxSentenceChars: 200 };
  const signal = new AbortController().signal;
  const speech$ = speakTurn(turn$, tts, { ...defaults, signal, answered, ...options });
  return { turn$, answered, sent: lastValueFrom(speech$.pipe(toArray())) };
}
