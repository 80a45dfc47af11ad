/**
 * How a conversation's turns begin: the user's (typed, said, keyed), the words the agent says of
 * its own accord (a `say`, the phrases after a failure, the time limit's goodbye, an answer said
 * on after a noise cut it) and the background calls' results told. Each passes the same gates
 * first: the time limit, a notice that may not be cut, the user's asides, the turn rate limit, a
 * stopping engine. Pure: no Nest import.
 */
import type { Logger } from '@nestjs/common';
import type { Phrases } from '../common/phrases.js';
import type { PhraseName } from '../common/named-phrases.js';
import { sessionPhrase } from './session-phrases.js';
import { AfterNotice } from './after-notice.js';
import { resultMessage, type BackgroundCalls } from './background-calls.js';
import type { ConversationDeps, Started } from './conversation-deps.js';
import type { ErrorCode } from './protocol/error-codes.js';
import { sayTurn } from './said.js';
import type { SessionEnd } from './session-end.js';
import type { Session } from './session.js';
import { cutPlayback, deliverTurn, takeCut } from './turn-delivery.js';
import { TurnRateLimit } from './turn-rate-limit.js';
import { TurnTimings } from './turn-timings.js';
import { takeAside } from './user-asides.js';
import type { Utterances } from './utterances.js';
import { MAX_WAITING_NOTES, refusal, type Notes, type Refusal } from './notes.js';

/** What of a conversation its turns are begun in (see Conversation). */
export interface TurnHost {
  readonly session: Session;
  readonly end: SessionEnd;
  readonly utterances: Utterances;
  readonly background: BackgroundCalls;
  readonly notes: Notes;
  /** The engine is stopping: the turn in progress may finish, no new one starts. */
  readonly draining: boolean;
  /** Runs `task` after every message received before it has been handled. */
  enqueue(task: () => Promise<void>): Promise<void>;
}

export class TurnStarter {
  private readonly turnLimit: TurnRateLimit;
  /** When the user's last turn began (`performance.now()`): see `Started.about`. */
  private lastUserTurn = -Infinity;
  /** Turns that came while the agent said what may not be cut: begun, in order, once it is over. */
  private readonly afterNotice: AfterNotice;

  constructor(
    private readonly host: TurnHost,
    private readonly deps: ConversationDeps,
    private readonly logger: Logger,
  ) {
    this.turnLimit = new TurnRateLimit(deps.maxTurnsPerMinute);
    this.afterNotice = new AfterNotice(host.session, (task) => host.enqueue(task));
  }

  private error(code: ErrorCode, message: string): void {
    this.deps.send({ type: 'error', code, message });
  }

  /**
   * Says `text` as a turn of its own (`say`) once the messages before it are handled, unless a
   * turn has begun meanwhile, or (`since`: what it is about came then) the user has taken a turn
   * since (`Started.about`); `starting` just before.
   */
  sayAside(text: string, starting?: () => void, since?: number): void {
    void this.host.enqueue(async () => {
      if (this.host.session.busy) return;
      starting?.();
      await this.start(text, { said: true, ...(since !== undefined && { about: since }) });
    });
  }

  /**
   * The session's phrase `name` (its own, else the engine's `phrases`), in its language, said
   * aside (none in a language it lacks); `since`: see sayAside.
   */
  sayPhrase(name: PhraseName, phrases: Phrases, since?: number): void {
    const text = sessionPhrase(this.host.session, name, phrases);
    if (text) this.sayAside(text, undefined, since);
  }

  /**
   * The user's voice cut the answer, and the utterance held no words after all (a cough, a door,
   * a noise taken for speech): the answer goes on from where it was cut, its history as it was —
   * unless anything has happened since, or it was long ago.
   */
  async resumeCut(): Promise<void> {
    const rest = takeCut(this.host.session);
    if (rest === undefined) return;
    this.deps.aside('noise');
    await this.start(rest, { said: true, resumed: true });
  }

  /**
   * A note (see notes.ts): into the history once no turn writes it, or with `respond` told by a
   * turn of its own as background results are; a client's counts for WS_MAX_TURNS_PER_MINUTE.
   * Why it was refused, or undefined.
   */
  async note(text: string, respond: boolean, byClient: boolean): Promise<Refusal | undefined> {
    if (this.host.notes.full)
      return refusal(
        'invalid_message',
        `${MAX_WAITING_NOTES} notes already wait for the turn in progress to end`,
      );
    if (respond && this.host.draining)
      return refusal('shutting_down', 'the server is shutting down: reconnect to continue');
    if (respond && byClient && !this.turnLimit.admit())
      return refusal(
        'rate_limited',
        `more than ${this.deps.maxTurnsPerMinute} turns in a minute (WS_MAX_TURNS_PER_MINUTE): wait a moment`,
      );
    this.host.notes.add(text, respond);
    if (respond) await this.tellResults();
    else this.keepNotes();
    return undefined;
  }

  /** Notes that ask for no answer go into the history once no turn is writing it, and are saved. */
  private keepNotes(): void {
    const { session, notes } = this.host;
    if (notes.size === 0 || notes.answerWanted) return;
    if (session.busy)
      return void session
        .idle()
        .then(() => this.host.enqueue(() => Promise.resolve(this.keepNotes())));
    this.takeNotes();
    void this.deps.save();
  }

  /** The notes waiting, into the history (between turns). */
  takeNotes(): void {
    for (const content of this.host.notes.take())
      this.host.session.history.push({ role: 'user', content });
  }

  /**
   * Background calls' results that have come, and notes that ask for an answer: a turn of their
   * own tells them once no other turn is in progress and the user is not speaking (the user's turn
   * carries them, see `start`).
   */
  async tellResults(): Promise<void> {
    const { background, notes, end } = this.host;
    if (!(background.waiting || notes.answerWanted) || !this.deps.connected()) return;
    // Past the time limit no turn tells them: they stay with the session.
    if (end.time.reached) return;
    if (this.host.session.busy)
      return void this.host.session.idle().then(() => this.host.enqueue(() => this.tellResults()));
    // Not over the user: their turn, when it comes, carries the results.
    if (this.host.utterances.hearing)
      return void setTimeout(() => void this.host.enqueue(() => this.tellResults()), 200);
    const told = [...background.take().map(resultMessage), ...notes.take()].join('\n\n');
    await this.start(told, { told: true });
  }

  /**
   * A turn answering `text`, or saying it (`said`), or telling background results (`told`: not the
   * user's, so it answers no approval, counts against no limit and cuts no answer still playing);
   * `since`: when the user's turn ended, `heard`: its transcription, `heardOut`: said while calls
   * ran (see Utterances).
   */
  async start(text: string, started: Started = {}): Promise<void> {
    const { since = performance.now(), heard, said = false, told = false } = started;
    const { heardOut = false, resumed = false, firm = false, last = false } = started;
    const { session, end, utterances, background } = this.host;
    // Past the time limit (SESSION_MAX_SECS), only the goodbye is said.
    if (end.time.reached && !last) return;
    // What comes while the agent says what may not be cut waits for its end (timed from then).
    const later = () => this.start(text, { ...started, since: undefined });
    if (!told && this.afterNotice.defer(later)) return;
    const user = !said && !told;
    // What the user has gone on from since is not said (a stale "I didn't catch that").
    if (started.about !== undefined && this.lastUserTurn > started.about) return;
    if (user) this.lastUserTurn = performance.now();
    const asked = { heard, heardOut, user, resumed };
    const aside = takeAside(session, text, asked, this.deps.confirmPhrases, this.deps.send);
    if (aside === 'continues') return this.resumeCut();
    if (aside === 'acknowledged' || aside === 'checked') return this.deps.aside(aside);
    if (aside) return;
    // Over the limit, the turn in progress goes on: nothing would replace it.
    if (!told && !resumed && !last && !this.turnLimit.admit())
      return this.error(
        'rate_limited',
        `more than ${this.deps.maxTurnsPerMinute} turns in a minute (WS_MAX_TURNS_PER_MINUTE): wait a moment; nothing was started`,
      );
    if (!told && !session.firm) cutPlayback(session, this.deps, this.logger);
    await session.cancel();
    // The client has gone, or is going (a message then a close): start nothing for nobody.
    if (!this.deps.connected()) return;
    if (this.host.draining && !told)
      return this.error('shutting_down', 'the server is shutting down: reconnect to continue');
    const { deps, logger } = this;
    // Notes that came during the turn before go in ahead of this one, whatever it is; results
    // that came while nothing told them go to the model with the user's words.
    this.takeNotes();
    if (user)
      for (const result of background.take())
        session.history.push({ role: 'user', content: resultMessage(result) });
    let failed: ErrorCode | undefined;
    // Timed when the client asks, and the user's turns for /api/sessions and the session's report.
    const shown = session.settings.timings === true;
    const kept = user ? session.latency : undefined;
    const clock = shown || kept ? new TurnTimings(since, heard) : undefined;
    session.begin(
      (signal) =>
        deliverTurn(
          session,
          deps,
          said
            ? sayTurn(session, text, resumed)
            : deps.turns.run(session, text, signal, heard, clock),
          {
            signal,
            since,
            logger,
            judging: () => utterances.judged,
            failed: (code) => (failed = code),
            ...(clock && { timings: { clock, shown, kept } }),
          },
        ).finally(() => {
          end.turnEnded(signal.aborted);
          // A spoken turn that failed (the LLM server, the engine) is not left in silence: once
          // it is no longer the session's (the next task), unless another has begun, or the
          // user has gone on since (the apology waiting behind a notice that may not be cut).
          if (failed === 'llm_failed' || failed === 'internal') {
            const failedAt = performance.now();
            setImmediate(() => this.sayPhrase('error', deps.speech.config.errorPhrases, failedAt));
          }
          // What the history dropped is summarised meanwhile, and kept with the session.
          void deps.turns.summarize(session).then((changed) => (changed ? deps.save() : undefined));
        }),
      !firm,
    );
  }
}
