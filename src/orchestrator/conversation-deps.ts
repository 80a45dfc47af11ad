/** What a Conversation is given (ConversationDeps), and how its turns come (Started). */
import type { SpeechService, Transcription } from '../speech/speech.service.js';
import type { ServerEvent } from './protocol/server-events.js';
import type { SettingsLimits } from './settings-update.js';
import type { Phrase } from './spoken-answer.js';
import type { TurnManager } from './turn-manager.service.js';
import type { BackgroundCalls } from './background-calls.js';
import type { ConfirmKeys } from '../config/env-values.js';
import type { SessionLimit } from '../config/env.js';
import type { UserAside } from '../metrics/conversation-metrics.js';

/** How a turn comes (see `TurnStarter.start`). */
export type Started = {
  since?: number;
  heard?: Transcription;
  said?: boolean;
  told?: boolean;
  heardOut?: boolean;
  /** The rest of an answer cut by a sound that held no words, said on (see `resumeCut`). */
  resumed?: boolean;
  /** A `say` the user may not cut ("interruptible": false; see `Session.firm`). */
  firm?: boolean;
  /** The session's last words: the goodbye at its time limit (SESSION_MAX_SECS). */
  last?: boolean;
  /**
   * Said about what came then (`performance.now()`: an utterance that could not be transcribed):
   * not said once the user has taken a turn since, however long it waited to begin.
   */
  about?: number;
};

export interface ConversationDeps extends SettingsLimits {
  turns: TurnManager;
  speech: SpeechService;
  /** Sends a JSON event, or a binary audio frame. */
  send: (event: ServerEvent | Buffer) => void;
  /**
   * Whether the connection is still open: false as soon as the client's close frame arrives,
   * before the socket's `close` event (which waits for the closing handshake) calls `close()`.
   */
  connected: () => boolean;
  /** Keeps the session for resuming (after each turn and settings change; see SessionKeeper.checkpoint). */
  save: () => Promise<void>;
  /** WS_MAX_TURNS_PER_MINUTE: turns this session may start in a minute; 0 for no limit. */
  maxTurnsPerMinute: number;
  /** SESSION_MAX_SECS: how long the conversation may last, and its goodbye. */
  timeLimit: SessionLimit;
  /** TOOL_CONFIRM_YES and TOOL_CONFIRM_NO: what answers a call awaiting approval. */
  confirmPhrases: readonly Phrase[];
  /** TOOL_CONFIRM_KEY_YES, _NO and _REPEAT: the phone's keys that answer it, or have it asked again. */
  confirmKeys: ConfirmKeys;
  /**
   * Waits for this message's turn (one Pacer for all sessions): a burst of messages, such as many
   * sessions starting a turn at once, then does not hold back the tokens of the answers already
   * streaming.
   */
  pace: () => Promise<void>;
  /** Ends the session, closing its connection; `forget`: it cannot be resumed. */
  hangUp: (code: number, reason: string, forget: boolean) => void;
  /**
   * The connection has closed with background calls running: keeps them for a connection that
   * resumes the session (false: it cannot be resumed, and they are aborted).
   */
  park: (calls: BackgroundCalls) => boolean;
  /** Counts what the user said that started no turn (here: an okay heard out). */
  aside: (kind: UserAside) => void;
  /** Counts the words held as unfinished by what became of them (VAD_UNFINISHED_WAIT_MS). */
  unfinished: (outcome: 'continued' | 'answered') => void;
}
