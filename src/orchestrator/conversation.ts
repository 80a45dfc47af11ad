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
import { cutPlayback, speaks } from './turn-delivery.js';
import { BackgroundCalls } from './background-calls.js';
import type { ConversationDeps } from './conversation-deps.js';
import { TurnStarter } from './turn-start.js';
import { Notes, refusal, type Refusal } from './notes.js';
import { seenHistory } from './seen-history.js';

/** One connection's conversation: dispatches client messages, runs turns, speaks and listens. */
export class Conversation {
  private readonly logger = new Logger(Conversation.name);
  /** What the user says (audio), heard and answered. */
  readonly utterances: Utterances;
  /** Keys pressed on the caller's phone, gathered into entries. */
  private readonly keys: PhoneKeys;
  /** The session's end by the engine: the model's `end_session` call, a silent user, the time. */
  readonly end: SessionEnd;
  /** Client messages are handled one after another, in arrival order. */
  private inbox: Promise<void> = Promise.resolve();
  /** The engine is stopping: the turn in progress may finish, no new one starts. */
  draining = false;
  /** Calls of `"background": true` tools, running as long as the connection. */
  readonly background: BackgroundCalls;
  /** How its turns begin. */
  private readonly turns: TurnStarter;
  /** The client's notes for the model that are not in the history yet. */
  readonly notes = new Notes();

  constructor(
    readonly session: Session,
    private readonly deps: ConversationDeps,
  ) {
    this.turns = new TurnStarter(this, deps, this.logger);
    session.background = this.background = new BackgroundCalls(
      ({ id, name, ok, ms }) => {
        deps.send({ type: 'tool_result', id, name, ok, ms, background: 'done' });
        void this.enqueue(() => this.turns.tellResults());
      },
      (event) => deps.send(event),
    );
    this.keys = new PhoneKeys(session, {
      timeoutMs: () => deps.speech.config.dtmf.timeoutMs,
      confirmKeys: deps.confirmKeys,
      send: deps.send,
      enqueue: (task) => void this.enqueue(task),
      bargeIn: () => this.bargeIn(),
      turn: (text) => this.turns.start(this.utterances.withHeld(text)),
    });
    this.end = new SessionEnd(session, deps.speech.config.idle, deps.timeLimit, {
      say: (text, starting) => this.turns.sayAside(text, starting),
      sayLast: (text) =>
        void this.enqueue(() => this.turns.start(text, { said: true, firm: true, last: true })),
      send: deps.send,
      hangUp: deps.hangUp,
      log: (line) => this.logger.log(line),
    });
    this.utterances = new Utterances(session, this.end, {
      speech: deps.speech,
      send: deps.send,
      error: (code, message, since) => {
        this.error(code, message);
        // The caller is not left in silence: they may say it again (unless they have gone on).
        if (code === 'stt_failed' && speaks(session, deps.speech))
          this.turns.sayPhrase('unclear', deps.speech.config.unclearPhrases, since);
      },
      bargeIn: () => this.bargeIn(true),
      nothingHeard: () => this.turns.resumeCut(),
      // Calls at work, not awaiting approval (a barge-in there is `bargeIn`'s to judge).
      calling: () => session.approvals.size === 0 && (session.waits?.calling ?? false),
      firm: () => session.firm,
      answer: (text, since, heard, heardOut) => this.turns.start(text, { since, heard, heardOut }),
      later: (task) => void this.enqueue(task),
      unfinished: deps.unfinished,
      warm: () => deps.turns.warm(),
      prepare: () => deps.turns.prepare(session),
    });
  }

  private error(code: ErrorCode, message: string): void {
    this.deps.send({ type: 'error', code, message });
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
        return this.turns.start(this.utterances.withHeld(message.text));
      case 'say':
        return this.turns.start(message.text, {
          said: true,
          ...(message.interruptible === false && { firm: true }),
        });
      case 'note':
        return this.clientNote(message.text, message.respond ?? false);
      case 'interrupt':
        cutPlayback(this.session, this.deps, this.logger);
        return this.session.cancel();
      case 'session.update':
        return void this.update(message);
      case 'audio':
        return this.utterances.hear(Buffer.from(message.data, 'base64'));
      case 'audio_end':
        return this.utterances.commit();
      case 'dtmf':
        this.utterances.keyed(this.deps.speech.config.dtmf.timeoutMs);
        return this.keys.press(message.digits);
      case 'history':
        return this.deps.send({
          type: 'history',
          messages: seenHistory(this.session.history),
          earlier: this.session.turnsDropped,
        });
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

  /** A client's `note`, at most SESSION_INSTRUCTIONS_MAX_CHARS long (0: clients add none). */
  private async clientNote(text: string, respond: boolean): Promise<void> {
    const max = this.deps.instructionsMaxChars;
    const refused =
      max === 0
        ? "notes are off on this engine (SESSION_INSTRUCTIONS_MAX_CHARS=0: clients add nothing to the model's prompt)"
        : text.length > max
          ? `"text" is longer than ${max} characters (SESSION_INSTRUCTIONS_MAX_CHARS)`
          : undefined;
    const refusedFor = refused
      ? refusal('invalid_message', refused)
      : await this.turns.note(text, respond, true);
    if (refusedFor) this.error(refusedFor.code, refusedFor.message);
  }

  /** An administrator's note (`POST /api/sessions/{id}/notes`), in order with the client's messages. */
  async note(text: string, respond: boolean): Promise<Refusal | undefined> {
    let refused: Refusal | undefined;
    await this.enqueue(async () => void (refused = await this.turns.note(text, respond, false)));
    return refused;
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

  /** The connection is open, its session resumed or new: the conversation's time counts. */
  opened(): void {
    this.end.time.start();
  }

  /** The client has gone: its turn is cancelled; settles once the turn has ended. */
  async close(): Promise<void> {
    this.utterances.close();
    this.keys.close();
    this.end.close();
    // The turn ends first: calls that act, running then, go on as background calls (run-calls.ts).
    await this.session.cancel();
    const { background } = this;
    // Calls running, or results not told yet: kept for a client that resumes the session.
    const kept = (background.running > 0 || background.waiting) && this.deps.park(background);
    if (!kept) background.close();
    // Notes still waiting are kept with the session, saved now that its turn has ended.
    this.turns.takeNotes();
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

  /**
   * An administrator gives the session to an assistant (`POST /api/sessions/{id}/agent`), in
   * order with the client's messages, whatever SESSION_AGENTS lets the client choose: why not, or
   * undefined (the client gets `session.updated`).
   */
  async assign(agent: string | null): Promise<string | undefined> {
    let refused: string | undefined;
    const message = { type: 'session.update', agent } as SessionUpdateMessage;
    await this.enqueue(() => {
      refused = this.update(message, { byAdmin: true });
      return Promise.resolve();
    });
    return refused;
  }

  private update(message: SessionUpdateMessage, { byAdmin = false } = {}): string | undefined {
    const limits = byAdmin ? { ...this.deps, clientAgents: null } : this.deps;
    const checked = settingsChanges(message, limits);
    if ('error' in checked) {
      if (byAdmin) return checked.error;
      return void this.error('invalid_message', `${checked.error}; nothing was changed`);
    }
    this.session.settings = { ...this.session.settings, ...checked.changes };
    // From the next request on, the assistant's instructions and tools (as after a handoff).
    if (checked.agent !== undefined) this.session.agent = checked.agent ?? undefined;
    this.end.settingsChanged();
    if (message.max_secs !== undefined) this.end.time.start();
    // During a turn the history is half-written: the turn's end saves both.
    if (!this.session.busy) void this.deps.save();
    this.deps.send(settingsUpdated(this.session, this.deps.speech.tts));
    return undefined;
  }
}
