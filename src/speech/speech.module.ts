import { Module } from '@nestjs/common';
import { speechConfig, type SpeechConfig } from '../config/app.config.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';
import { CachedTtsEngine } from './cached-tts.engine.js';
import { EspeakTtsEngine } from './espeak-tts.engine.js';
import { NoTtsEngine, OpenAiTtsEngine } from './openai-tts.engine.js';
import { SpeechService } from './speech.service.js';
import { NoSttEngine, OpenAiSttEngine, SttEngine } from './stt-engine.js';
import { TtsEngine } from './tts-engine.js';

@Module({
  providers: [
    {
      provide: TtsEngine,
      inject: [speechConfig.KEY, EngineMetrics],
      useFactory: (config: SpeechConfig, metrics: EngineMetrics): TtsEngine => {
        const { provider, cacheBytes } = config.tts;
        if (provider === 'none') return new NoTtsEngine();
        const engine =
          provider === 'espeak'
            ? new EspeakTtsEngine(config.tts.espeakWorkers)
            : new OpenAiTtsEngine(config);
        if (cacheBytes === 0) return engine;
        return new CachedTtsEngine(engine, cacheBytes, () => metrics.speech.cacheHit(provider));
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
