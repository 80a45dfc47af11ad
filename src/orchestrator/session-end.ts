/**
 * When the engine ends a session itself: the model called an `end_session` tool (the
 * conversation is over) or a `transfer_call` tool (a person takes the call), the user stayed
 * silent after being asked whether they were there, an answering machine took a call the agent
 * placed (the message is left), or the conversation reached its time limit. Pure: no Nest import.
 */
import type { SessionLimit } from '../config/env.js';
import type { TelephonyEnv } from '../config/telephony-env.js';
import { ANSWERING_MACHINE, TRANSFERRED, ENDED_BY_AGENT, USER_IDLE } from './close-codes.js';
import { sessionPhrase } from './session-phrases.js';
import { sessionIdleWatch, type IdleWatch } from './idle-watch.js';
import type { ServerEvent } from './protocol/server-events.js';
import type { Session } from './session.js';
import { TimeLimit } from './time-limit.js';

export interface SessionEndActions {
  /**
   * Says a text as the agent's turn (`say`), unless a turn runs by then (the user spoke or typed
   * as the silence ran out: no question, no goodbye over their turn); `starting` just before.
   */
  say: (text: string, starting?: () => void) => void;
  /** Says a text as the session's last turn, which no one can cut (the time limit's goodbye). */
  sayLast: (text: string) => void;
  /** Sends the client an event (a `transfer`, for it to act on). */
  send: (event: ServerEvent) => void;
  /** Closes the connection with `code`; `forget`: the session cannot be resumed. */
  hangUp: (code: number, reason: string, forget: boolean) => void;
  log: (line: string) => void;
}

export class SessionEnd {
  /** Asks a user who has gone quiet whether they are there, then lets them go. */
  private readonly idle: IdleWatch;
  /** The goodbye to a silent user is being said: the session ends with it. */
  private leaving = false;
  /** A message is being left on an answering machine: the call ends with it, whole or cut. */
  private leavingMessage = false;
  /** The conversation's time limit (SESSION_MAX_SECS). */
  readonly time: TimeLimit;

  constructor(
    private readonly session: Session,
    idle: TelephonyEnv['idle'],
    limit: SessionLimit,
    private readonly actions: SessionEndActions,
  ) {
    this.time = new TimeLimit(session, limit, {
      sayLast: actions.sayLast,
      up: () => this.idle.close(),
      hangUp: actions.hangUp,
      log: actions.log,
    });
    this.idle = sessionIdleWatch(session, idle, {
      say: actions.say,
      end: () => {
        const goodbye = sessionPhrase(session, 'idle_goodbye', idle.goodbyes);
        if (!goodbye) return this.letGo();
        // Said first: the session ends once it has been given whole (see `turnEnded`).
        actions.say(goodbye, () => (this.leaving = true));
      },
    });
  }

  /**
   * A turn is over (`aborted`: cut short). The model's `end_session` (or `transfer_call`) call
   * ends the session once its turn has been given whole; a turn the user cut short after it goes
   * on (the user had more to say). Past the time limit, the goodbye is said, or the session ends.
   * Otherwise the user's silence counts from now.
   */
  turnEnded(aborted: boolean): void {
    const { session } = this;
    if (this.leavingMessage) {
      this.actions.log(`message left on an answering machine (session_id=${session.id})`);
      return this.actions.hangUp(ANSWERING_MACHINE, 'answering machine', true);
    }
    if (this.leaving) {
      this.leaving = false;
      // Spoken over, the goodbye was heard by someone: the conversation goes on.
      if (!aborted) return this.letGo();
    }
    const transferTo = session.ending?.transferTo;
    if (session.ending && !aborted) {
      this.idle.close();
      if (transferTo !== undefined) {
        this.actions.log(`session transferred by the agent (session_id=${session.id})`);
        this.actions.send({ type: 'transfer', to: transferTo });
        // Kept for resuming (SESSION_RESUME_SECS): a call no one answered comes back to it.
        return this.actions.hangUp(TRANSFERRED, 'transferred', false);
      }
      this.actions.log(`session ended by the agent (session_id=${session.id})`);
      return this.actions.hangUp(ENDED_BY_AGENT, 'ended by the agent', true);
    }
    if (this.time.turnEnded()) return;
    session.ending = undefined;
    // The silence counts from the end of what the client still plays.
    this.idle.turnEnded(session.playback?.spoken.at(-1)?.playedBy);
  }

  /**
   * An answering machine took a call the agent placed, its greeting over: `voicemail` is said,
   * then the call ends; with none ('': a fax, or nothing to leave) it ends at once. No turn in
   * progress by then (the caller cut it).
   */
  leaveMessage(voicemail: string): void {
    this.idle.close();
    this.actions.log(`an answering machine took the call (session_id=${this.session.id})`);
    if (voicemail === '') return this.actions.hangUp(ANSWERING_MACHINE, 'answering machine', true);
    this.leavingMessage = true;
    this.actions.say(voicemail);
  }

  /** A message is being left on a machine: what it plays or records is no one speaking. */
  get recording(): boolean {
    return this.leavingMessage;
  }

  /** The user did something (spoke, typed, pressed a key, answered): the silence counts afresh. */
  activity(): void {
    this.idle.activity();
  }

  /** The user started or stopped speaking (voice activity detection). */
  set userSpeaking(speaking: boolean) {
    this.idle.userSpeaking = speaking;
  }

  /** Between the user's `speech_started` and `speech_stopped`. */
  get userSpeaking(): boolean {
    return this.idle.userSpeaking;
  }

  /** The settings changed (a session just made a voice one): its silence counts from now. */
  settingsChanged(): void {
    this.idle.turnEnded();
  }

  close(): void {
    this.idle.close();
    this.time.close();
  }

  /** Ends the session of a user who stayed silent. */
  private letGo(): void {
    this.idle.close();
    this.actions.log(`session ended: the user stayed silent (session_id=${this.session.id})`);
    this.actions.hangUp(USER_IDLE, 'user idle', false);
  }
}
