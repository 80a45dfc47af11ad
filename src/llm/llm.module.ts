import { Logger, Module } from '@nestjs/common';
import { llmConfig, type LlmConfig } from '../config/app.config.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';
import { FallbackLlmClient } from './fallback-llm.client.js';
import { LlmServerCheck } from './llm-server-check.service.js';
import { LlmClient } from './llm.types.js';
import { OpenAiLlmClient } from './openai-llm.client.js';
import type { DefusedSource } from './server-adaptations.js';

@Module({
  providers: [
    {
      provide: LlmClient,
      inject: [llmConfig.KEY, EngineMetrics],
      useFactory: (config: LlmConfig, metrics: EngineMetrics): LlmClient => {
        const broken = (source: DefusedSource) => metrics.controlTokensBroken(source);
        const primary = new OpenAiLlmClient(config, () => config, broken);
        const { fallback } = config;
        if (!fallback) return primary;
        const logger = new Logger('LlmFallback');
        return new FallbackLlmClient(
          primary,
          new OpenAiLlmClient(
            {
              ...config,
              ...fallback,
              untaggedReasoning: false,
              // Another model's reasoning is nothing for the fallback's to go on from.
              keepReasoning: 'off',
              serverToolParser: 'auto',
              // A session's model is one of the first server's: the fallback answers with its own.
              models: [],
              fallback: undefined,
              // LLM_CLIENT_CERT_FILE's certificate is for LLM_BASE_URL's server alone.
              clientTls: undefined,
            },
            // Its key and headers as they are now (rotated in their files, SECRET_FILES_WATCH_SECS).
            () => fallback,
            broken,
          ),
          {
            switched: (reason) => {
              metrics.llmFallback();
              logger.warn(`the LLM server failed (${reason}): asking LLM_FALLBACK_BASE_URL`);
            },
            hedged: (ms) =>
              logger.debug(
                `no answer from the LLM server within LLM_FALLBACK_AFTER_MS (${ms} ms): asking LLM_FALLBACK_BASE_URL as well`,
              ),
            decided: (winner) => metrics.llmHedged(winner),
          },
          fallback.afterMs,
        );
      },
    },
    LlmServerCheck,
  ],
  exports: [LlmClient],
})
export class LlmModule {}
