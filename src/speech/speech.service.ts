import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { speechConfig, type SpeechConfig } from '../config/app.config.js';
import type { TurnEvent } from '../orchestrator/protocol/server-events.js';
import { EspeakTtsEngine } from './espeak-tts.engine.js';
import { SttEngine } from './stt-engine.js';
import { TtsEngine } from './tts-engine.js';
import { phraseFor } from './tool-wait.js';
import { speakTurn, type SpeechEvent } from './turn-speech.js';

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
    /** A tool's own `wait_phrase`, by language, if it has one. */
    waitPhrasesOf: (tool: string) => Record<string, string> | undefined = () => undefined,
  ): Observable<SpeechEvent> {
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
    });
  }

  transcribe(pcm: Buffer, language: string, signal: AbortSignal): Promise<string> {
    return this.stt.transcribe(pcm, language, signal);
  }
}
