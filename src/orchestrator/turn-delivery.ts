/**
 * One turn's events as the client gets them: sent as they come and, in a voice session, spoken;
 * after a barge-in, history keeps only what was heard. Pure: no Nest import.
 */
import type { Logger } from '@nestjs/common';
import { connectable, Subject, type Observable } from 'rxjs';
import type { SpeechService } from '../speech/speech.service.js';
import { keepSpokenOnly, unheardText } from '../speech/spoken-history.js';
import type { ErrorCode } from './protocol/error-codes.js';
import type { ServerEvent, TurnEvent } from './protocol/server-events.js';
import { SpeechCut, type Playback, type Session } from './session.js';
import { speechOut } from './speech-out.js';
import type { TurnManager } from './turn-manager.service.js';
import { ownPhrase } from './session-phrases.js';
import type { TurnTimings } from './turn-timings.js';
import type { TurnLatency } from './turn-latency.js';

export interface DeliveryDeps {
  speech: SpeechService;
  turns: Pick<TurnManager, 'waitPhrasesOf'>;
  send: (event: ServerEvent | Buffer) => void;
  save: () => Promise<void>;
}

export function drain<T>(source$: Observable<T>, next: (value: T) => void): Promise<void> {
  return new Promise<void>((resolve) =>
    source$.subscribe({ next, complete: resolve, error: () => resolve() }),
  );
}

/**
 * A sentence whose last this-many milliseconds were still to play when the user cut in counts as
 * heard: its words were (synthesis ends a sentence with a short silence), and the client's clock
 * and the engine's differ by a few milliseconds.
 */
const HEARD_TAIL_MS = 150;

/**
 * A turn timed by `clock`: its ends carry their timings when `shown` (`session.update`'s
 * `timings`), and they are `kept` for the session's report.
 */
export interface TimedTurn {
  clock: TurnTimings;
  shown: boolean;
  kept: TurnLatency | undefined;
}

/** Whether the session's answers are spoken. */
export const speaks = ({ settings }: Session, speech: Pick<SpeechService, 'canSpeak'>): boolean =>
  settings.modality === 'voice' && settings.tts && speech.canSpeak;

/** Delivers the turn `source$` of `session`; `since`: when the user's turn ended. */
export async function deliverTurn(
  session: Session,
  deps: DeliveryDeps,
  source$: Observable<TurnEvent>,
  {
    signal,
    since,
    logger,
    judging,
    failed,
    timings,
  }: {
    signal: AbortSignal;
    since: number;
    /** Told where the turn's time goes. */
    timings?: TimedTurn;
    logger: Logger;
    /** The user's words said over the turn, still to be judged: its speech waits for them. */
    judging?: () => Promise<void> | undefined;
    /** A spoken turn sent an `error` event: its code. */
    failed?: (code: ErrorCode) => void;
  },
): Promise<void> {
  const settings = session.settings;
  const speaking = speaks(session, deps.speech);
  const send = timings ? timed(timings, deps.send) : deps.send;
  const clock = timings?.clock;
  const out = speaking ? await speechOut(settings, deps.speech.tts.sampleRate, send) : undefined;
  // Shared only when speech listens too: a text session keeps the hot path one subscriber deep.
  // Started once both listen (`connect`, below): what the turn sends as it starts (its `at_start`
  // calls) reaches both, not only the first to subscribe.
  const shared = speaking
    ? connectable(source$, { connector: () => new Subject<TurnEvent>(), resetOnDisconnect: false })
    : undefined;
  const turn$ = shared ?? source$;
  // Each sentence sent whole, and when the client will have played it.
  const spoken: Playback['spoken'] = [];
  let cutAt = Infinity;
  signal.addEventListener('abort', () => (cutAt = performance.now()), { once: true });
  const work: Promise<void>[] = [];
  if (out) {
    const speech$ = deps.speech.speak(
      turn$,
      settings,
      signal,
      (sentence, playedBy) => spoken.push({ sentence, playedBy }),
      {
        waitPhrasesOf: (tool) => deps.turns.waitPhrasesOf(tool),
        since,
        span: () => session.turnSpan,
        judging,
        agentVoice: () => session.agent?.voice,
        languageNow: () => session.settings.language,
        answered: session.answered,
        session,
        phraseOf: (name) => ownPhrase(session, name),
        ...(clock && { synthesized: (at: number, s: number) => clock.synthesized(at, s) }),
      },
    );
    work.push(drain(speech$, (event) => out.send(event)));
  }
  // Whether the answer's text had ended (not cut while the model still wrote it): watched only
  // when speaking, a text session's deltas going straight to the client.
  let whole = false;
  const sent = (event: TurnEvent) => {
    if (event.type === 'assistant_end' && !event.interrupted) whole = true;
    else if (event.type === 'error') failed?.(event.code);
    send(event);
  };
  work.push(drain(turn$, speaking ? sent : send));
  shared?.connect();
  await Promise.all(work);
  out?.close();
  // Cut short while speaking: the client learns what was heard, whether the text had ended (its
  // end said all of it) or not (its end said what was shown, more than was heard).
  if (speaking && signal.aborted) {
    // Cut by the user's voice, a whole answer may go on if the utterance holds no words.
    const goesOn = whole && signal.reason instanceof SpeechCut;
    keepHeard(session, deps, heardOf(spoken, cutAt), logger, goesOn);
  } else if (speaking && heardOf(spoken, performance.now()).length < spoken.length)
    // (Its turn still the session's: whether the user may cut it is known.)
    session.playback = {
      spoken,
      last: session.history.at(-1),
      ...(session.firmTurn && { firm: true as const }),
    };
  void deps.save();
}

/**
 * `send`, telling the turn's clock what it sends; the turn's text and speech ends given their
 * timings when `shown`, and those `kept`.
 */
function timed(
  { clock, shown, kept }: TimedTurn,
  send: DeliveryDeps['send'],
): DeliveryDeps['send'] {
  return (event) => {
    if (Buffer.isBuffer(event)) clock.sent('audio');
    else if (event.type === 'assistant_end') {
      const timings = clock.text();
      kept?.add(timings);
      if (shown) return send({ ...event, timings });
    } else if (event.type === 'audio_end') {
      const timings = clock.audio();
      kept?.add(timings);
      if (shown) return send({ ...event, timings });
    } else clock.sent(event.type);
    send(event);
  };
}

/**
 * The user cuts in after the turn has ended, while the client still plays its last audio: as a
 * barge-in during the turn, the client learns what was heard and history keeps only that.
 */
export function cutPlayback(
  session: Session,
  deps: Pick<DeliveryDeps, 'send' | 'save'>,
  logger: Logger,
  bySpeech = false,
): void {
  const playback = session.playback;
  session.playback = undefined;
  if (!playback || session.history.at(-1) !== playback.last) return;
  const heard = heardOf(playback.spoken, performance.now());
  if (heard.length === playback.spoken.length) return;
  keepHeard(session, deps, heard, logger, bySpeech);
  void deps.save();
}

/** An answer cut by a sound that held no words goes on if that is known this soon after the cut. */
const RESUME_WITHIN_MS = 15_000;

/**
 * The rest of the answer the user's voice cut, its history restored as it was, when the
 * utterance turned out to hold no words — unless anything has happened since (a turn, a change
 * of history), or it was long ago: undefined then.
 */
export function takeCut(session: Session): string | undefined {
  const cut = session.cut;
  session.cut = undefined;
  if (!cut || session.busy || session.history !== cut.trimmed) return undefined;
  if (performance.now() - cut.at > RESUME_WITHIN_MS) return undefined;
  session.history = cut.history;
  return cut.rest;
}

/**
 * The sentences played by `cutAt`: one sent whole but still playing (SPEECH_AUDIO_LEAD_MS ahead)
 * was not heard whole.
 */
function heardOf(spoken: Playback['spoken'], cutAt: number): string[] {
  return spoken.filter((s) => s.playedBy <= cutAt + HEARD_TAIL_MS).map((s) => s.sentence);
}

function keepHeard(
  session: Session,
  deps: Pick<DeliveryDeps, 'send'>,
  heard: string[],
  logger: Logger,
  /** The rest may go on (`takeCut`) if the utterance that cut it holds no words. */
  goesOn: boolean,
): void {
  deps.send({ type: 'assistant_end', text: heard.join(' '), interrupted: true, heard: true });
  const before = session.history;
  session.history = keepSpokenOnly(before, heard);
  const rest = goesOn ? unheardText(before, heard) : '';
  session.cut =
    rest === ''
      ? undefined
      : { history: before, rest, trimmed: session.history, at: performance.now() };
  logger.debug(
    `barge-in: history keeps ${heard.length} heard sentence(s) (session_id=${session.id})`,
  );
}
