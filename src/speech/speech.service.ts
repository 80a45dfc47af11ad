import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { speechConfig, type SpeechConfig } from '../config/app.config.js';
import type { TurnEvent } from '../orchestrator/protocol/server-events.js';
import { SttEngine } from './stt-engine.js';
import { TtsEngine } from './tts-engine.js';
import { phraseFor, type Phrases } from '../common/phrases.js';
import type { PhraseName } from '../common/named-phrases.js';
import type { SpeechEvent } from './speak-options.js';
import { speakTurn } from './turn-speech.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';
import type { SpanRef } from '../common/trace-context.js';
import { Spans } from '../tracing/spans.js';
import { responseSpan, synthesisSpan } from './speech-spans.js';

/** How an utterance was heard: the transcription's times (`performance.now()`) and provider. */
export interface Transcription {
  startedAt: number;
  endedAt: number;
  provider: string;
}

/** An utterance's words and how they were heard; or the error the client gets, when it could not be. */
export type Heard =
  | { text: string; heard: Transcription; language?: string }
  | { error: 'stt_unavailable' | 'stt_failed'; message: string };

export interface VoiceSettings {
  voice: string;
  language: string;
}

/** The voice of a turn's next sentence: the assistant's a handoff chose, the session's, the default. */
function voiceOf(settings: VoiceSettings, agentVoice: () => string | undefined, fallback: string) {
  return agentVoice() || settings.voice || fallback;
}

/** What the orchestrator uses of speech: speak a turn, transcribe an utterance. */
@Injectable()
export class SpeechService implements OnModuleInit {
  constructor(
    readonly tts: TtsEngine,
    readonly stt: SttEngine,
    @Inject(speechConfig.KEY) readonly config: SpeechConfig,
    private readonly metrics: EngineMetrics,
    private readonly spans: Spans,
  ) {}

  onModuleInit(): void {
    this.tts.warmUp();
    // A certificate past its date is refused by the servers that ask for one: said, not fatal.
    if (this.config.clientTls?.expired)
      new Logger('Speech').warn(`SPEECH_CLIENT_CERT_FILE: ${this.config.clientTls.expired}`);
  }

  get canSpeak(): boolean {
    return this.tts.provider !== 'none';
  }

  speak(
    turn$: Observable<TurnEvent>,
    settings: VoiceSettings,
    signal: AbortSignal,
    onSpoken: (sentence: string, playedBy: number) => void,
    {
      waitPhrasesOf = () => undefined,
      since,
      span,
      judging,
      agentVoice = () => undefined,
      languageNow = () => settings.language,
      answered,
      session = settings,
      phraseOf = () => undefined,
      synthesized,
    }: {
      /** The voice of the assistant the session was handed to, if it has one of its own. */
      agentVoice?: () => string | undefined;
      /** The session's language now (a handoff may change it within the turn). */
      languageNow?: () => string;
      /** A tool's own `wait_phrase`, by language, if it has one. */
      waitPhrasesOf?: (tool: string) => Phrases | undefined;
      /** When the user's turn ended (`performance.now()`): the answer's first audio is timed from it. */
      since?: number;
      /** The turn's exported span, when spans are exported: each synthesis is a span under it. */
      span?: () => SpanRef | undefined;
      /** See SpeakOptions. */
      judging?: () => Promise<void> | undefined;
      /** See SpeakOptions. */
      answered?: Observable<string>;
      /** Whose turn it is: of several phrases, each session is given the next in turn. */
      session?: object;
      /** The session's own phrase `name` now, or its assistant's, if either gave one. */
      phraseOf?: (name: PhraseName) => Phrases | undefined;
      /** A sentence's synthesis asked for at `askedAt` (`performance.now()`) gave audio after `firstAudioSeconds`. */
      synthesized?: (askedAt: number, firstAudioSeconds: number) => void;
    } = {},
  ): Observable<SpeechEvent> {
    const { speech } = this.metrics;
    const provider = this.tts.provider;
    const traced = this.spans.enabled ? span : undefined;
    const { config } = this;
    const fallbackVoice = config.tts.voice;
    const said = (phrases: Phrases) => phraseFor(phrases, languageNow(), session);
    // The session's own phrase for `name` (or its assistant's), if it gave one, else the engine's.
    const phrase = (phrases: Phrases, name: PhraseName) => said(phraseOf(name) ?? phrases);
    return speakTurn(turn$, this.tts, {
      // Read for each sentence: a handoff in the turn speaks the next in the new assistant's voice.
      get voice() {
        return voiceOf(settings, agentVoice, fallbackVoice);
      },
      get language() {
        return languageNow();
      },
      maxSentenceChars: this.config.maxSentenceChars,
      firstClauseChars: this.config.firstClauseChars,
      spellCodes: this.config.spellCodes,
      leadMs: this.config.audioLeadMs,
      toolWaitMs: this.config.toolWaitMs,
      answerWaitMs: this.config.thinkingWaitMs,
      ...(since !== undefined && { since }),
      toolStillMs: this.config.toolStillMs,
      questionRepeatMs: this.config.questionRepeatMs,
      questionRepeats: this.config.questionRepeats,
      onQuestion: (event) => speech.questionSaid(event),
      // The phrases too, each in the language of the moment it is said: a handoff's after it.
      get toolWaitPhrase() {
        return phrase(config.toolWaitPhrases, 'wait');
      },
      get toolStillPhrase() {
        return phrase(config.toolStillPhrases, 'still');
      },
      get questionRepeatPhrase() {
        return phrase(config.questionRepeatPhrases, 'question_repeat');
      },
      get unclearPhrase() {
        return phrase(config.unclearPhrases, 'unclear');
      },
      get holdPhrase() {
        return phrase(config.holdPhrases, 'hold');
      },
      get stillHerePhrase() {
        return phrase(config.stillHerePhrases, 'still_here');
      },
      get confirmPhrase() {
        return phrase(config.confirmPhrases, 'confirm');
      },
      toolWaitPhraseOf: (tool) => {
        const phrases = waitPhrasesOf(tool);
        return phrases && said(phrases);
      },
      signal,
      onSpoken,
      judging,
      ...(answered && { answered }),
      ...(since !== undefined && {
        onFirstAudio: () => {
          const now = performance.now();
          speech.responded((now - since) / 1000);
          const parent = traced?.();
          if (parent) responseSpan(this.spans, parent, since, now);
        },
      }),
      onSynthesized: (outcome, firstAudio, took) => {
        speech.synthesized(provider, outcome, firstAudio);
        if (synthesized && firstAudio !== undefined) synthesized(took.startedAt, firstAudio);
        const parent = traced?.();
        if (parent) synthesisSpan(this.spans, parent, provider, outcome, firstAudio, took);
      },
    });
  }

  /**
   * The utterance's words, and how they were heard (for the turn's trace); with
   * STT_DETECT_LANGUAGE, the language they were heard in (when the server told it).
   */
  async transcribe(pcm: Buffer, language: string, signal: AbortSignal): Promise<Heard> {
    const { provider } = this.stt;
    const startedAt = performance.now();
    const took = () => (performance.now() - startedAt) / 1000;
    try {
      const { detectLanguage } = this.config.stt;
      const transcribed = await this.stt.transcribe(pcm, language, signal, detectLanguage);
      const { text, language: heardIn } = transcribed;
      if (provider !== 'none') this.metrics.speech.transcribed(provider, 'ok', took());
      const heard = { startedAt, endedAt: performance.now(), provider };
      return { text, heard, ...(heardIn && { language: heardIn }) };
    } catch (error) {
      const outcome = signal.aborted ? 'cancelled' : 'failed';
      if (provider === 'none')
        return { error: 'stt_unavailable', message: (error as Error).message };
      this.metrics.speech.transcribed(provider, outcome, took());
      return { error: 'stt_failed', message: (error as Error).message };
    }
  }
}
