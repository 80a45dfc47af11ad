import { Module } from '@nestjs/common';
import { speechConfig, type SpeechConfig } from '../config/app.config.js';
import { EspeakTtsEngine } from './espeak-tts.engine.js';
import { NoTtsEngine, OpenAiTtsEngine } from './openai-tts.engine.js';
import { SpeechService } from './speech.service.js';
import { NoSttEngine, OpenAiSttEngine, SttEngine } from './stt-engine.js';
import { TtsEngine } from './tts-engine.js';

@Module({
  providers: [
    {
      provide: TtsEngine,
      inject: [speechConfig.KEY],
      useFactory: (config: SpeechConfig): TtsEngine => {
        switch (config.tts.provider) {
          case 'espeak':
            return new EspeakTtsEngine(config.tts.espeakWorkers);
          case 'openai':
            return new OpenAiTtsEngine(config);
          case 'none':
            return new NoTtsEngine();
        }
      },
    },
    {
      provide: SttEngine,
      inject: [speechConfig.KEY],
      useFactory: (config: SpeechConfig): SttEngine =>
        config.stt.provider === 'openai' ? new OpenAiSttEngine(config) : new NoSttEngine(),
    },
    SpeechService,
  ],
  exports: [SpeechService],
})
export class SpeechModule {}
