/**
 * A caller who has gone quiet: when the user has said, typed and pressed nothing for a while
 * after the agent's last turn, the agent asks whether they are still there, a few times, then
 * the session is ended (a phone call left open, a headset put down). Pure: no Nest import.
 */
import type { TelephonyEnv } from '../config/telephony-env.js';
import { sessionPhrase } from './session-phrases.js';
import type { ClientMessage } from './protocol/client-messages.js';
import type { Session } from './session.js';

/** The client's messages that show the user is there (their audio is told apart by the ear). */
export const USER_ACTIVITY = new Set<ClientMessage['type']>([
  'user_text',
  'interrupt',
  'audio_end',
  'dtmf',
  'tool_confirm',
  'tool_answer',
  'client_tool_result',
]);

export interface IdleWatchOptions {
  /** The silence that counts as idle, in seconds; 0: never (read at each check). */
  secs: () => number;
  /** How many times the user is asked before the session ends. */
  prompts: number;
  /** Whether a turn runs (the agent thinks, speaks or waits for a call): never idle then. */
  busy: () => boolean;
  /** Asks the user whether they are still there (a said turn). */
  prompt: () => void;
  /** Ends the session (after a goodbye, if there is one to say). */
  end: () => void;
}

export class IdleWatch {
  private timer: NodeJS.Timeout | undefined;
  /** When the user last did something, or the agent's last turn ended (performance.now()). */
  private since = performance.now();
  private asked = 0;
  private speaking = false;
  private closed = false;

  constructor(private readonly options: IdleWatchOptions) {}

  /** The user did something (spoke, typed, pressed a key, answered): they are there. */
  activity(): void {
    this.since = performance.now();
    this.asked = 0;
    this.arm();
  }

  /** The user started or stopped speaking (voice activity detection): never idle while speaking. */
  set userSpeaking(speaking: boolean) {
    this.speaking = speaking;
    this.activity();
  }

  get userSpeaking(): boolean {
    return this.speaking;
  }

  /**
   * A turn ended (an answer, or the question itself): the silence counts from now, or from
   * `playedBy` (`performance.now()`), when the client will have played its last audio.
   */
  turnEnded(playedBy = performance.now()): void {
    this.since = Math.max(playedBy, performance.now());
    this.arm();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One timer, set again only when it fires early: cheap to call on every audio frame. */
  private arm(): void {
    if (this.closed || this.timer) return;
    const secs = this.options.secs();
    if (secs <= 0) return;
    this.timer = setTimeout(
      () => this.check(),
      Math.max(0, this.since + secs * 1000 - performance.now()),
    );
    this.timer.unref();
  }

  private check(): void {
    this.timer = undefined;
    const secs = this.options.secs();
    if (this.closed || secs <= 0) return;
    // Busy: the turn's end arms it again. Active since: not idle yet.
    if (this.options.busy()) return;
    // Speaking (an utterance may be long): not idle; looked at again a whole silence later.
    if (this.speaking) this.since = performance.now();
    if (performance.now() - this.since < secs * 1000) return this.arm();
    if (this.asked < this.options.prompts) {
      this.asked += 1;
      // Counted from now, should the question not be said (no phrase in the session's language).
      this.since = performance.now();
      this.options.prompt();
      this.arm();
    } else {
      // The session ends (which closes the watch), after a goodbye said as a turn (whose end
      // arms it again, should the user, there after all, speak over it).
      this.asked = 0;
      this.since = performance.now();
      this.options.end();
      this.arm();
    }
  }
}

/**
 * The watch of a session: on in voice sessions (the session's `idle_secs`, USER_IDLE_SECS unless
 * changed); `say` says the question in the session's language (none when USER_IDLE_PHRASE has
 * none for it).
 */
export function sessionIdleWatch(
  session: Session,
  idle: TelephonyEnv['idle'],
  { say, end }: { say: (text: string) => void; end: () => void },
): IdleWatch {
  return new IdleWatch({
    secs: () => (session.settings.modality === 'voice' ? session.settings.idle_secs : 0),
    prompts: idle.prompts,
    busy: () => session.busy,
    prompt: () => {
      const phrase = sessionPhrase(session, 'idle', idle.phrases);
      if (phrase) say(phrase);
    },
    end,
  });
}
