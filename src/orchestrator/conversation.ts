import { Logger } from '@nestjs/common';
import { parseClientMessage, type SessionUpdateMessage } from './protocol/client-messages.js';
import type { ErrorCode } from './protocol/error-codes.js';
import { SpeechCut, type Session } from './session.js';

import { settleAnswer } from './client-answers.js';
import { settingsChanges, settingsUpdated } from './settings-update.js';
import { userMayAnswer } from './questions.js';
import { USER_ACTIVITY } from './idle-watch.js';
import { SessionEnd } from './session-end.js';
import { PhoneKeys } from './keypad.js';
import { Utterances } from './utterances.js';
import { cutPlayback, deliverTurn, speaks, takeCut } from './turn-delivery.js';
import { sayTurn } from './said.js';
import { TurnRateLimit } from './turn-rate-limit.js';
import { BackgroundCalls, resultMessage } from './background-calls.js';
import type { ConversationDeps, Started } from './conversation-deps.js';
import { takeAside } from './user-asides.js';
import { AfterNotice } from './after-notice.js';
import { phraseFor } from '../speech/tool-wait.js';

/** One connection's conversation: dispatches client messages, runs turns, speaks and listens. */
export class Conversation {
  private readonly logger = new Logger(Conversation.name);
  /** What the user says (audio), heard and answered. */
  private readonly utterances: Utterances;
  /** Keys pressed on the caller's phone, gathered into entries. */
  private readonly keys: PhoneKeys;
  /** The session's end by the engine: the model's `end_session` call, a silent user. */
  private readonly end: SessionEnd;
  /** Client messages are handled one after another, in arrival order. */
  private inbox: Promise<void> = Promise.resolve();
  /** The engine is stopping: the turn in progress may finish, no new one starts. */
  private draining = false;
  private readonly turnLimit: TurnRateLimit;
  /** Calls of `"background": true` tools, running as long as the connection. */
  private readonly background: BackgroundCalls;
  /** Turns that came while the agent said what may not be cut: begun, in order, once it is over. */
  private readonly afterNotice: AfterNotice;

  constructor(
    readonly session: Session,
    private readonly deps: ConversationDeps,
  ) {
    this.turnLimit = new TurnRateLimit(deps.maxTurnsPerMinute);
    this.afterNotice = new AfterNotice(session, (task) => this.enqueue(task));
    session.background = this.background = new BackgroundCalls(
      ({ id, name, ok, ms }) => {
        deps.send({ type: 'tool_result', id, name, ok, ms, background: 'done' });
        void this.enqueue(() => this.tellResults());
      },
      (event) => deps.send(event),
    );
    this.keys = new PhoneKeys(session, {
      timeoutMs: () => deps.speech.config.dtmf.timeoutMs,
      confirmKeys: deps.confirmKeys,
      send: deps.send,
      enqueue: (task) => void this.enqueue(task),
      bargeIn: () => this.bargeIn(),
      turn: (text) => this.startTurn(this.utterances.withHeld(text)),
    });
    this.end = new SessionEnd(session, deps.speech.config.idle, deps.timeLimit, {
      say: (text, starting) => this.sayAside(text, starting),
      sayLast: (text) =>
        void this.enqueue(() => this.startTurn(text, { said: true, firm: true, last: true })),
      send: deps.send,
      hangUp: deps.hangUp,
      log: (line) => this.logger.log(line),
    });
    this.utterances = new Utterances(session, this.end, {
      speech: deps.speech,
      send: deps.send,
      error: (code, message) => {
        this.error(code, message);
        // The caller is not left in silence: they may say it again.
        if (code === 'stt_failed' && speaks(session, deps.speech))
          this.sayPhrase(deps.speech.config.unclearPhrases);
      },
      bargeIn: () => this.bargeIn(true),
      nothingHeard: () => this.resumeCut(),
      // Calls at work, not awaiting approval (a barge-in there is `bargeIn`'s to judge).
      calling: () => session.approvals.size === 0 && (session.waits?.calling ?? false),
      firm: () => session.firm,
      answer: (text, since, heard, heardOut) => this.startTurn(text, { since, heard, heardOut }),
      later: (task) => void this.enqueue(task),
      unfinished: deps.unfinished,
    });
  }

  private error(code: ErrorCode, message: string): void {
    this.deps.send({ type: 'error', code, message });
  }

  /**
   * Says `text` as a turn of its own (`say`) once the messages before it are handled, unless a
   * turn has begun meanwhile; `starting` just before.
   */
  private sayAside(text: string, starting?: () => void): void {
    void this.enqueue(async () => {
      if (this.session.busy) return;
      starting?.();
      await this.startTurn(text, { said: true });
    });
  }

  /** One of `phrases`, in the session's language, said aside (none in a language it lacks). */
  private sayPhrase(phrases: Record<string, string>): void {
    const text = phraseFor(phrases, this.session.settings.language);
    if (text) this.sayAside(text);
  }

  /** Queues one frame from the client: text frames are JSON messages, binary frames are audio. */
  receive(data: Buffer, isBinary: boolean): Promise<void> {
    return this.enqueue(async () => {
      await this.deps.pace();
      return isBinary ? this.utterances.hear(data) : this.onText(data.toString('utf8'));
    });
  }

  /** Runs `task` after every message received before it has been handled. */
  enqueue(task: () => Promise<void>): Promise<void> {
    this.inbox = this.inbox.then(task).catch((error: unknown) => {
      this.logger.error(
        `message handling failed (session_id=${this.session.id}): ${(error as Error).stack}`,
      );
      this.error('internal', 'internal error while handling the message');
    });
    return this.inbox;
  }

  async onText(raw: string): Promise<void> {
    const parsed = parseClientMessage(raw);
    if ('error' in parsed) return this.error('invalid_message', parsed.error);
    const { message } = parsed;
    if (USER_ACTIVITY.has(message.type)) this.end.activity();
    switch (message.type) {
      case 'user_text':
        return this.startTurn(this.utterances.withHeld(message.text));
      case 'say':
        return this.startTurn(message.text, {
          said: true,
          ...(message.interruptible === false && { firm: true }),
        });
      case 'interrupt':
        cutPlayback(this.session, this.deps, this.logger);
        return this.session.cancel();
      case 'session.update':
        return this.update(message);
      case 'audio':
        return this.utterances.hear(Buffer.from(message.data, 'base64'));
      case 'audio_end':
        return this.utterances.commit();
      case 'dtmf':
        this.utterances.keyed(this.deps.speech.config.dtmf.timeoutMs);
        return this.keys.press(message.digits);
      case 'ping':
        return this.deps.send({
          type: 'pong',
          ...(message.id !== undefined && { id: message.id }),
        });
      case 'tool_confirm':
      case 'tool_answer':
      case 'client_tool_result': {
        const error = settleAnswer(this.session, message);
        return error ? this.error('invalid_message', error) : undefined;
      }
    }
  }

  /**
   * A placed call's answering-machine detection says a machine (its greeting over) or a fax took
   * the call: the turn in progress is cut, the voicemail said, and the call ends. False for a
   * session placed without detection.
   */
  answeredBy(kind: 'machine' | 'fax'): boolean {
    const { machine } = this.session;
    if (!machine) return false;
    void this.enqueue(async () => {
      cutPlayback(this.session, this.deps, this.logger);
      await this.session.cancel();
      this.end.leaveMessage(kind === 'fax' ? '' : machine.voicemail);
    });
    return true;
  }

  /**
   * The user speaks over the agent. While a call awaits approval or an answer to its question,
   * what the user says may be the answer: the turn waits for the utterance to end (see
   * `answerApprovals`, `answerQuestion`).
   */
  private async bargeIn(bySpeech = false): Promise<void> {
    const { session } = this;
    // What the agent says now may not be cut (`say` with "interruptible": false).
    if (session.firm) return;
    if (!session.busy) cutPlayback(session, this.deps, this.logger, bySpeech);
    else if (!userMayAnswer(session, this.deps.confirmPhrases))
      await session.cancel(bySpeech ? new SpeechCut() : undefined);
  }

  /**
   * The user's voice cut the answer, and the utterance held no words after all (a cough, a door,
   * a noise taken for speech): the answer goes on from where it was cut, its history as it was —
   * unless anything has happened since, or it was long ago.
   */
  private async resumeCut(): Promise<void> {
    const rest = takeCut(this.session);
    if (rest === undefined) return;
    this.deps.aside('noise');
    await this.startTurn(rest, { said: true, resumed: true });
  }

  /** The connection is open, its session resumed or new: the conversation's time counts. */
  opened(): void {
    this.end.time.start();
  }

  /** The client has gone: its turn is cancelled; settles once the turn has ended. */
  close(): Promise<void> {
    const { background } = this;
    // Calls running, or results not told yet: kept for a client that resumes the session.
    const kept = (background.running > 0 || background.waiting) && this.deps.park(background);
    if (!kept) background.close();
    this.utterances.close();
    this.keys.close();
    this.end.close();
    return this.session.cancel();
  }

  /**
   * Starts no new turn from now on; settles once the turn in progress (and its audio) is over
   * and the messages received meanwhile have been answered.
   */
  async finish(): Promise<void> {
    this.draining = true;
    for (;;) {
      const inbox = this.inbox;
      await inbox;
      // A background call's result is told before the connection closes (within the grace period).
      await this.background.settled();
      await this.session.idle();
      if (inbox === this.inbox) return;
    }
  }

  /** Cuts a turn still in progress short (it ends with `assistant_end` interrupted). */
  async stop(): Promise<void> {
    this.draining = true;
    await this.session.cancel();
  }

  private update(message: SessionUpdateMessage): void {
    const checked = settingsChanges(message, this.deps);
    if ('error' in checked)
      return this.error('invalid_message', `${checked.error}; nothing was changed`);
    this.session.settings = { ...this.session.settings, ...checked.changes };
    this.end.settingsChanged();
    if (message.max_secs !== undefined) this.end.time.start();
    // During a turn the history is half-written: the turn's end saves both.
    if (!this.session.busy) void this.deps.save();
    this.deps.send(settingsUpdated(this.session.settings, this.deps.speech.tts));
  }

  /**
   * Background calls' results that have come: a turn of their own tells them once no other turn
   * is in progress and the user is not speaking (the user's turn carries them, see `startTurn`).
   */
  private async tellResults(): Promise<void> {
    if (!this.background.waiting || !this.deps.connected()) return;
    if (this.session.busy)
      return void this.session.idle().then(() => this.enqueue(() => this.tellResults()));
    // Not over the user: their turn, when it comes, carries the results.
    if (this.utterances.hearing)
      return void setTimeout(() => void this.enqueue(() => this.tellResults()), 200);
    const told = this.background.take().map(resultMessage).join('\n\n');
    await this.startTurn(told, { told: true });
  }

  /**
   * A turn answering `text`, or saying it (`said`), or telling background results (`told`: not the
   * user's, so it answers no approval, counts against no limit and cuts no answer still playing);
   * `since`: when the user's turn ended, `heard`: its transcription, `heardOut`: said while calls
   * ran (see Utterances).
   */
  private async startTurn(text: string, started: Started = {}): Promise<void> {
    const { since = performance.now(), heard, said = false, told = false } = started;
    const { heardOut = false, resumed = false, firm = false, last = false } = started;
    // Past the time limit (SESSION_MAX_SECS), only the goodbye is said.
    if (this.end.time.reached && !last) return;
    // What comes while the agent says what may not be cut waits for its end (timed from then).
    const later = () => this.startTurn(text, { ...started, since: undefined });
    if (!told && this.afterNotice.defer(later)) return;
    const user = !said && !told;
    const asked = { heard, heardOut, user, resumed };
    const aside = takeAside(this.session, text, asked, this.deps.confirmPhrases, this.deps.send);
    if (aside === 'continues') return this.resumeCut();
    if (aside === 'acknowledged' || aside === 'checked') return this.deps.aside(aside);
    if (aside) return;
    // Over the limit, the turn in progress goes on: nothing would replace it.
    if (!told && !resumed && !last && !this.turnLimit.admit())
      return this.error(
        'rate_limited',
        `more than ${this.deps.maxTurnsPerMinute} turns in a minute (WS_MAX_TURNS_PER_MINUTE): wait a moment; nothing was started`,
      );
    if (!told && !this.session.firm) cutPlayback(this.session, this.deps, this.logger);
    await this.session.cancel();
    // The client has gone, or is going (a message then a close): start nothing for nobody.
    if (!this.deps.connected()) return;
    if (this.draining && !told)
      return this.error('shutting_down', 'the server is shutting down: reconnect to continue');
    const { session, deps, logger } = this;
    // Results that came while nothing told them go to the model with the user's words.
    if (user)
      for (const result of this.background.take())
        session.history.push({ role: 'user', content: resultMessage(result) });
    let failed: ErrorCode | undefined;
    session.begin(
      (signal) =>
        deliverTurn(
          session,
          deps,
          said ? sayTurn(session, text, resumed) : deps.turns.run(session, text, signal, heard),
          {
            signal,
            since,
            logger,
            judging: () => this.utterances.judged,
            failed: (code) => (failed = code),
          },
        ).finally(() => {
          this.end.turnEnded(signal.aborted);
          // A spoken turn that failed (the LLM server, the engine) is not left in silence: once
          // it is no longer the session's (the next task), unless another has begun.
          if (failed === 'llm_failed' || failed === 'internal')
            setImmediate(() => this.sayPhrase(deps.speech.config.errorPhrases));
          // What the history dropped is summarised meanwhile, and kept with the session.
          void deps.turns.summarize(session).then((changed) => (changed ? deps.save() : undefined));
        }),
      !firm,
    );
  }
}
