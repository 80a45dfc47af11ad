import { Logger, Module } from '@nestjs/common';
import { speechConfig, type SpeechConfig } from '../config/app.config.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';
import { CachedTtsEngine } from './cached-tts.engine.js';
import { EspeakTtsEngine } from './espeak-tts.engine.js';
import { FallbackTtsEngine } from './fallback-tts.engine.js';
import { FallbackSttEngine } from './fallback-stt.engine.js';
import { FAILOVER_PAUSE_MS } from '../common/failover.js';
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
        const { provider, cacheBytes, espeakWorkers } = config.tts;
        if (provider === 'none') return new NoTtsEngine();
        const engine =
          provider === 'espeak' ? new EspeakTtsEngine(espeakWorkers) : new OpenAiTtsEngine(config);
        const kept =
          cacheBytes === 0
            ? engine
            : new CachedTtsEngine(engine, cacheBytes, () => metrics.speech.cacheHit(provider));
        if (provider !== 'openai' || config.tts.fallback === 'none') return kept;
        // Outside the cache: eSpeak's speech of a sentence is not kept as the server's.
        const logger = new Logger('TtsFallback');
        return new FallbackTtsEngine(kept, new EspeakTtsEngine(espeakWorkers), {
          fellBack: (why) =>
            logger.warn(
              `TTS server failed (${why}): sentences are said by eSpeak NG (TTS_FALLBACK), the server tried again in ${FAILOVER_PAUSE_MS / 1000} s`,
            ),
          recovered: () => logger.log('TTS server speaks again'),
          said: () => metrics.speech.fellBack(),
        });
      },
    },
    {
      provide: SttEngine,
      inject: [speechConfig.KEY, EngineMetrics],
      useFactory: (config: SpeechConfig, metrics: EngineMetrics): SttEngine => {
        if (config.stt.provider === 'none') return new NoSttEngine();
        const server = new OpenAiSttEngine(config);
        if (!config.stt.fallback) return server;
        const logger = new Logger('SttFallback');
        const fallback = new OpenAiSttEngine(config, 'fallback');
        const events = {
          fellBack: (why: string) =>
            logger.warn(
              `speech-to-text server failed (${why}): utterances go to STT_FALLBACK_BASE_URL, the server tried again in ${FAILOVER_PAUSE_MS / 1000} s`,
            ),
          recovered: () => logger.log('speech-to-text server transcribes again'),
          heard: () => metrics.speech.sttFellBack(),
          hedged: (ms: number) =>
            logger.debug(
              `no transcription from the speech-to-text server within STT_FALLBACK_AFTER_MS (${ms} ms): asking STT_FALLBACK_BASE_URL as well`,
            ),
        };
        const { afterMs } = config.stt.fallback;
        return new FallbackSttEngine(server, fallback, events, FAILOVER_PAUSE_MS, afterMs);
      },
    },
    SpeechService,
  ],
  exports: [SpeechService],
})
export class SpeechModule {}
