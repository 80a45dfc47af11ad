/** What a turn's speech sends (`speakTurn`), and how it is asked to speak. */
import type { Observable } from 'rxjs';
import type { QuestionSaid, SpeechOutcome } from '../metrics/speech-metrics.js';

export type SpeechEvent =
  | {
      type: 'audio';
      seq: number;
      format: 'pcm_s16le';
      sample_rate: number;
      channels: 1;
      data: Buffer;
    }
  | { type: 'audio_end' }
  /** The client drops the audio it has not played: a question answered, or asked again, meanwhile. */
  | { type: 'audio_clear' }
  | { type: 'error'; code: 'tts_failed'; message: string };

export interface SpeakOptions {
  voice: string;
  language: string;
  maxSentenceChars: number;
  /** SPEECH_FIRST_CLAUSE_CHARS: a first sentence is said from its first clause this long; 0: whole. */
  firstClauseChars?: number;
  /** Numbers and codes to note down said a character at a time (see spellCodes). */
  spellCodes?: boolean;
  signal: AbortSignal;
  /**
   * Called with each sentence (as written in the answer) once all of its audio was handed out,
   * with when (`performance.now()`) the client will have played it: the client plays the audio
   * as it comes, at its speed, pausing only while none has come.
   */
  onSpoken?: (sentence: string, playedBy: number) => void;
  /** SPEECH_TOOL_WAIT_MS and SPEECH_TOOL_WAIT_PHRASE (see ToolWait); 0 or '': never. */
  toolWaitMs?: number;
  toolWaitPhrase?: string;
  /**
   * SPEECH_THINKING_WAIT_MS (see AnswerWait): the wait phrase said when nothing of the answer has
   * come this long after `since`, when the user's turn ended (default: the speech's start); 0: never.
   */
  answerWaitMs?: number;
  since?: number;
  /** SPEECH_TOOL_STILL_MS and SPEECH_TOOL_STILL_PHRASE (see ToolStill); 0 or '': never. */
  toolStillMs?: number;
  toolStillPhrase?: string;
  /** SPEECH_QUESTION_REPEAT_MS and SPEECH_QUESTION_REPEATS (see QuestionRepeats); 0: never. */
  questionRepeatMs?: number;
  questionRepeats?: number;
  /** SPEECH_QUESTION_REPEAT_PHRASE: said before such a repeat ('' : the question alone). */
  questionRepeatPhrase?: string;
  /** A question was cut by its answer, or said again unanswered (counted). */
  onQuestion?: (event: QuestionSaid) => void;
  /** A tool's own wait phrase in the session's language (its `wait_phrase`), if it has one. */
  toolWaitPhraseOf?: (tool: string) => string | undefined;
  /** SPEECH_UNCLEAR_PHRASE: said before a question asked again ('' : the question alone). */
  unclearPhrase?: string;
  /** SPEECH_HOLD_PHRASE: said when the user asks the waiting calls to wait ('' : nothing). */
  holdPhrase?: string;
  /** SPEECH_STILL_HERE_PHRASE: said when the user asks whether the agent is there ('' : nothing). */
  stillHerePhrase?: string;
  /** SPEECH_CONFIRM_PHRASE: asked for a call awaiting approval without a prompt ('' : nothing). */
  confirmPhrase?: string;
  /**
   * The ids of the calls whose question (`tool_confirm`, `tool_question`) the user has answered,
   * as they are: what is left of it is not said (see TurnSpeech.answered).
   */
  answered?: Observable<string>;
  /**
   * Settles once the user's words said over the turn have been judged (undefined: none are
   * pending): no sentence starts before it does.
   */
  judging?: () => Promise<void> | undefined;
  /** Bytes per audio event; barge-in stops within one chunk. Default: 200 ms of audio. */
  chunkBytes?: number;
  /**
   * Audio is sent at playback speed, at most this far ahead of real time, so that a barge-in
   * drops what the user has not heard yet. Undefined: send as fast as it is synthesised.
   */
  leadMs?: number;
  /** The answer's first audio is being sent. */
  onFirstAudio?: () => void;
  /** One sentence's synthesis ended; `firstAudioSeconds` when it gave any audio. */
  onSynthesized?: (
    outcome: SpeechOutcome,
    firstAudioSeconds: number | undefined,
    took: Took,
  ) => void;
}

/** A synthesis's times (`performance.now()`) and the characters it said. */
export interface Took {
  startedAt: number;
  endedAt: number;
  characters: number;
}
