import type { SpeechService, Transcription } from '../speech/speech.service.js';
import type { ErrorCode } from './protocol/error-codes.js';
import type { ServerEvent } from './protocol/server-events.js';
import type { Session } from './session.js';
import type { SessionEnd } from './session-end.js';
import { LazyAbort } from '../common/lazy-abort.js';
import { Listening } from './listening.js';
import { HeardOutJudging } from './heard-out-judging.js';
import { soundsUnfinished } from './unfinished.js';
import { languageCode } from '../common/language-code.js';
import { settingsUpdated } from './settings-update.js';

/** Words of `text`: each Chinese or Japanese character counts as one. */
const wordsIn = (text: string) =>
  text.match(
    /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[^\s\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu,
  )?.length ?? 0;

/** What the user's audio leads to in the conversation. */
export interface UtteranceDeps {
  speech: SpeechService;
  send: (event: ServerEvent | Buffer) => void;
  /** `since`: when the utterance it is about ended (`performance.now()`), if it is about one. */
  error: (code: ErrorCode, message: string, since?: number) => void;
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
  /** Runs `task` after the messages received before it (the conversation's inbox). */
  later: (task: () => Promise<void>) => void;
  /** Words held as unfinished went on (`continued`) or were answered as they were. */
  unfinished: (outcome: 'continued' | 'answered') => void;
  /** An utterance is being transcribed: its answer's request will follow. */
  warm?: () => void;
  /** The user's audio is coming: a turn will follow (its `at_start` calls may begin). */
  prepare?: () => void;
}

/** Words that sounded unfinished, waiting for the user to go on (VAD_UNFINISHED_WAIT_MS). */
interface Held {
  text: string;
  ended: number;
  heard: Transcription;
  timer: NodeJS.Timeout | undefined;
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
  private held: Held | undefined;

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
    this.deps.prepare?.();
    this.judging.heard();
    for (const heard of await this.listening.hear(data)) {
      if (heard.type === 'audio') {
        this.end.activity();
        await this.overAgent();
      } else if (heard.type === 'invalid') {
        this.heardOut = undefined;
        this.judging.drop();
        this.deps.error('invalid_audio', heard.message);
        await this.answerHeld();
      } else if (heard.type === 'speech_started') {
        this.end.userSpeaking = true;
        // The user goes on: words held wait for the rest (see `answer`).
        clearTimeout(this.held?.timer);
        this.begins();
        const heardOut = this.heardOut || this.deps.firm();
        this.deps.send({ type: 'speech_started', ...(heardOut && { heard_out: true }) });
        await this.overAgent();
      } else {
        this.end.userSpeaking = false;
        this.deps.send({ type: 'speech_stopped', ...(heard.cut && { cut: true }) });
        // The user stopped speaking when the silence that ended the utterance began.
        await this.answer(heard.pcm, performance.now() - heard.silenceMs, !heard.cut);
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
    return this.end.userSpeaking || this.transcribing > 0 || this.held !== undefined;
  }

  /**
   * `text` the user typed or keyed, after the words they left unfinished, if any ("my account
   * number is" and the keys 4 7 1 1): one turn.
   */
  withHeld(text: string): string {
    const held = this.takeHeld();
    if (!held) return text;
    this.deps.unfinished('continued');
    return `${held.text} ${text}`;
  }

  /**
   * A key pressed on the caller's phone: words held wait for the entry (`entryMs`, the longest
   * it may take to end) and then as long again as they would have (the entry takes them).
   */
  keyed(entryMs: number): void {
    this.arm(entryMs + this.session.settings.vad_unfinished_wait_ms);
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
    this.takeHeld();
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

  /**
   * Transcribes an utterance that ended at `ended`, and answers it — after the words held before
   * it. Words of an utterance the engine ended (`paused`: VAD) that sound unfinished are held
   * instead, for the user to go on: "I'd like a table for" (a pause) "four people".
   */
  private async answer(pcm: Buffer, ended: number, paused = false): Promise<void> {
    const heardOut = this.heardOut ?? false;
    this.heardOut = undefined;
    const judged = this.judging.ended();
    try {
      const { language } = this.session.settings;
      // The LLM server's connection is opened while the words are transcribed, not after.
      this.deps.warm?.();
      this.transcribing++;
      const heard = await this.deps.speech
        .transcribe(pcm, language, this.closed.signal)
        .finally(() => this.transcribing--);
      if ('error' in heard) {
        this.deps.error(heard.error, heard.message, ended);
        return await this.answerHeld();
      }
      const waitMs = this.session.settings.vad_unfinished_wait_ms;
      const heardIn = heard.language;
      const unfinished =
        paused && !heardOut && waitMs > 0 && soundsUnfinished(heard.text, heardIn ?? language);
      this.deps.send({
        type: 'transcript',
        text: heard.text,
        ...(heardOut && { heard_out: true }),
        ...(unfinished && { unfinished: true }),
        ...(heardIn && { language: heardIn }),
      });
      if (heardIn) this.follow(heardIn, heard.text);
      if (heard.text === '') {
        this.deps.error('no_speech', 'no speech was recognised in the utterance');
        if (this.held) return await this.answerHeld();
        return await this.deps.nothingHeard();
      }
      const text = this.withHeld(heard.text);
      if (unfinished) return this.hold({ text, ended, heard: heard.heard }, waitMs);
      await this.deps.answer(text, ended, heard.heard, heardOut);
    } finally {
      judged();
    }
  }

  /**
   * STT_DETECT_LANGUAGE: the session goes on in the language the user spoke (its speech, the
   * phrases, the clock line), once they said three words or more in it: a short "okay" is no sure
   * sign of a language.
   */
  private follow(heardIn: string, text: string): void {
    const { settings } = this.session;
    if (languageCode(settings.language) === heardIn || wordsIn(text) < 3) return;
    // Only the languages the line serves (STT_DETECT_LANGUAGE=en,es), when it names them.
    const { followLanguages } = this.deps.speech.config.stt;
    if (followLanguages.length > 0 && !followLanguages.includes(heardIn)) return;
    this.session.settings = { ...settings, language: heardIn };
    this.deps.send(settingsUpdated(this.session, this.deps.speech.tts));
  }

  /** Holds words that sound unfinished: answered as they are if the user says no more in `waitMs`. */
  private hold(held: Omit<Held, 'timer'>, waitMs: number): void {
    this.held = { ...held, timer: undefined };
    this.arm(waitMs);
  }

  /** The words held are answered as they are `ms` from now, unless the user goes on before. */
  private arm(ms: number): void {
    const { held } = this;
    if (!held) return;
    clearTimeout(held.timer);
    held.timer = setTimeout(() => this.deps.later(() => this.answerHeld(true)), ms);
  }

  /** Answers the words held, if any (`waited`: their time is up, unless the user went on). */
  private async answerHeld(waited = false): Promise<void> {
    if (waited && this.end.userSpeaking) return;
    // The client had the agent say something meanwhile (`say`): answered once it has been heard.
    if (waited && this.held && (this.session.busy || this.playing())) return this.arm(100);
    const held = this.takeHeld();
    if (!held) return;
    this.deps.unfinished('answered');
    await this.deps.answer(held.text, held.ended, held.heard, false);
  }

  /** The client still plays the agent's last words. */
  private playing(): boolean {
    const last = this.session.playback?.spoken.at(-1);
    return last !== undefined && last.playedBy > performance.now();
  }

  private takeHeld(): Held | undefined {
    const { held } = this;
    clearTimeout(held?.timer);
    this.held = undefined;
    return held;
  }
}
