import type { SpeechService, Transcription } from '../speech/speech.service.js';
import type { ErrorCode } from './protocol/error-codes.js';
import type { ServerEvent } from './protocol/server-events.js';
import type { Session } from './session.js';
import type { SessionEnd } from './session-end.js';
import { LazyAbort } from '../common/lazy-abort.js';
import { Listening } from './listening.js';
import { HeardOutJudging } from './heard-out-judging.js';

/** What the user's audio leads to in the conversation. */
export interface UtteranceDeps {
  speech: SpeechService;
  send: (event: ServerEvent | Buffer) => void;
  error: (code: ErrorCode, message: string) => void;
  /** The user speaks over the agent. */
  bargeIn: () => Promise<void>;
  /** The utterance held no words after all (a cough, a door): what it cut may go on. */
  nothingHeard: () => Promise<void>;
  /** Calls of the turn in progress are running. */
  calling: () => boolean;
  /** The agent says what the user may not cut (see `Session.firm`): they are heard out too. */
  firm: () => boolean;
  /**
   * Answers what the user said (`text`), their turn having ended at `since`; `heardOut`: they
   * began while calls ran, and were heard out rather than cut the calls short.
   */
  answer: (text: string, since: number, heard: Transcription, heardOut: boolean) => Promise<void>;
}

/** One connection's audio from the user: listened to, transcribed, answered. */
export class Utterances {
  private readonly listening: Listening;
  private readonly closed = new LazyAbort();
  /** Utterances being transcribed. */
  private transcribing = 0;
  /**
   * The utterance under way, if one is: whether it began while the turn's calls ran. Such an
   * utterance is no barge-in: it is heard out, and cuts the calls short only if it says more than
   * "okay" (a caller's "okay, thanks" to "One moment." would cancel a booking half made).
   */
  private heardOut: boolean | undefined;
  /** Heard-out utterances whose words are not judged yet: the answer's speech waits for them. */
  private readonly judging = new HeardOutJudging();

  constructor(
    private readonly session: Session,
    private readonly end: SessionEnd,
    private readonly deps: UtteranceDeps,
  ) {
    const { stt, vad } = deps.speech.config;
    // Read for every frame of audio: its fields named, not spread (a spread costs 1–2 µs).
    this.listening = new Listening(() => ({
      silenceMs: session.settings.vad_silence_ms,
      minSpeechMs: vad.minSpeechMs,
      mode: vad.mode,
      maxSeconds: stt.maxSeconds,
      format: session.settings.input_audio_format,
    }));
  }

  /** Binary frames are audio: PCM s16le, 16 kHz, mono, or the session's `input_audio_format`. */
  async hear(data: Buffer): Promise<void> {
    if (this.end.recording) return;
    this.judging.heard();
    for (const heard of await this.listening.hear(data)) {
      if (heard.type === 'audio') {
        this.end.activity();
        await this.overAgent();
      } else if (heard.type === 'invalid') {
        this.heardOut = undefined;
        this.judging.drop();
        this.deps.error('invalid_audio', heard.message);
      } else if (heard.type === 'speech_started') {
        this.end.userSpeaking = true;
        this.begins();
        const heardOut = this.heardOut || this.deps.firm();
        this.deps.send({ type: 'speech_started', ...(heardOut && { heard_out: true }) });
        await this.overAgent();
      } else {
        this.end.userSpeaking = false;
        this.deps.send({ type: 'speech_stopped', ...(heard.cut && { cut: true }) });
        // The user stopped speaking when the silence that ended the utterance began.
        await this.answer(heard.pcm, performance.now() - heard.silenceMs);
      }
    }
  }

  /** `audio_end`: the client says the utterance is over. */
  async commit(): Promise<void> {
    const pcm = this.listening.end();
    if (pcm) return this.answer(pcm, performance.now());
    this.heardOut = undefined;
    this.judging.drop();
    if (this.listening.detecting)
      return this.deps.error('no_speech', 'no speech was heard before audio_end');
    return this.deps.error(
      'invalid_audio',
      'audio_end without audio: send PCM s16le 16 kHz mono frames first',
    );
  }

  /** The user is speaking, or what they said is being transcribed: their turn is coming. */
  get hearing(): boolean {
    return this.end.userSpeaking || this.transcribing > 0;
  }

  /**
   * Settles once the heard-out utterances under way have been judged (undefined: none is): the
   * answer's speech waits for it, lest the agent speak over the caller.
   */
  get judged(): Promise<void> | undefined {
    return this.judging.until;
  }

  /** The connection has closed: a transcription under way is abandoned. */
  close(): void {
    this.judging.drop();
    this.closed.abort();
    this.listening.close();
  }

  /** The user speaks: a barge-in, unless the turn's calls run (see `heardOut`). */
  private async overAgent(): Promise<void> {
    if (!this.begins()) await this.deps.bargeIn();
  }

  /** The utterance under way is heard out: whether it began while the turn's calls ran. */
  private begins(): boolean {
    if (this.heardOut === undefined) {
      this.heardOut = this.deps.calling();
      if (this.heardOut) this.judging.begin();
    }
    return this.heardOut;
  }

  /** Transcribes an utterance that ended at `ended`, and answers it. */
  private async answer(pcm: Buffer, ended: number): Promise<void> {
    const heardOut = this.heardOut ?? false;
    this.heardOut = undefined;
    const judged = this.judging.ended();
    try {
      const { language } = this.session.settings;
      this.transcribing++;
      const heard = await this.deps.speech
        .transcribe(pcm, language, this.closed.signal)
        .finally(() => this.transcribing--);
      if ('error' in heard) return this.deps.error(heard.error, heard.message);
      this.deps.send({
        type: 'transcript',
        text: heard.text,
        ...(heardOut && { heard_out: true }),
      });
      if (heard.text === '') {
        this.deps.error('no_speech', 'no speech was recognised in the utterance');
        return await this.deps.nothingHeard();
      }
      await this.deps.answer(heard.text, ended, heard.heard, heardOut);
    } finally {
      judged();
    }
  }
}
