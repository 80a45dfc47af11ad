import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { speechConfig, type SpeechConfig } from '../config/app.config.js';
import type { TurnEvent } from '../orchestrator/protocol/server-events.js';
import { EspeakTtsEngine } from './espeak-tts.engine.js';
import { SttEngine } from './stt-engine.js';
import { TtsEngine } from './tts-engine.js';
import { phraseFor } from './tool-wait.js';
import { speakTurn, type SpeechEvent } from './turn-speech.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';

export interface VoiceSettings {
  voice: string;
  language: string;
}

/** What the orchestrator uses of speech: speak a turn, transcribe an utterance. */
@Injectable()
export class SpeechService implements OnModuleInit {
  constructor(
    readonly tts: TtsEngine,
    readonly stt: SttEngine,
    @Inject(speechConfig.KEY) readonly config: SpeechConfig,
    private readonly metrics: EngineMetrics,
  ) {}

  onModuleInit(): void {
    if (this.tts instanceof EspeakTtsEngine) this.tts.warmUp();
  }

  get canSpeak(): boolean {
    return this.tts.provider !== 'none';
  }

  speak(
    turn$: Observable<TurnEvent>,
    settings: VoiceSettings,
    signal: AbortSignal,
    onSpoken: (sentence: string) => void,
    {
      waitPhrasesOf = () => undefined,
      since,
    }: {
      /** A tool's own `wait_phrase`, by language, if it has one. */
      waitPhrasesOf?: (tool: string) => Record<string, string> | undefined;
      /** When the user's turn ended (`performance.now()`): the answer's first audio is timed from it. */
      since?: number;
    } = {},
  ): Observable<SpeechEvent> {
    const { speech } = this.metrics;
    const provider = this.tts.provider;
    return speakTurn(turn$, this.tts, {
      voice: settings.voice || this.config.tts.voice,
      language: settings.language,
      maxSentenceChars: this.config.maxSentenceChars,
      leadMs: this.config.audioLeadMs,
      toolWaitMs: this.config.toolWaitMs,
      toolWaitPhrase: phraseFor(this.config.toolWaitPhrases, settings.language),
      toolWaitPhraseOf: (tool) => {
        const phrases = waitPhrasesOf(tool);
        return phrases && phraseFor(phrases, settings.language);
      },
      signal,
      onSpoken,
      ...(since !== undefined && {
        onFirstAudio: () => speech.responded((performance.now() - since) / 1000),
      }),
      onSynthesized: (outcome, firstAudio) => speech.synthesized(provider, outcome, firstAudio),
    });
  }

  async transcribe(pcm: Buffer, language: string, signal: AbortSignal): Promise<string> {
    const { provider } = this.stt;
    const started = performance.now();
    const took = () => (performance.now() - started) / 1000;
    if (provider === 'none') return this.stt.transcribe(pcm, language, signal);
    try {
      const text = await this.stt.transcribe(pcm, language, signal);
      this.metrics.speech.transcribed(provider, 'ok', took());
      return text;
    } catch (error) {
      this.metrics.speech.transcribed(provider, signal.aborted ? 'cancelled' : 'failed', took());
      throw error;
    }
  }
}
