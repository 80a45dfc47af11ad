import { Module } from '@nestjs/common';
import { ConfigModule as NestConfigModule } from '@nestjs/config';
import {
  appConfig,
  codeToolsConfig,
  llmConfig,
  metricsConfig,
  tracingConfig,
  sessionsConfig,
  speechConfig,
  toolsConfig,
} from './app.config.js';
import { parseEnv } from './env.js';
import { SecretRotation } from './secret-rotation.service.js';

/**
 * Global typed configuration. `.env` is read when present; the whole environment is
 * validated at boot, so a bad value stops start-up with a message naming the variable.
 */
@Module({
  imports: [
    NestConfigModule.forRoot({
      isGlobal: true,
      cache: true,
      load: [
        appConfig,
        llmConfig,
        toolsConfig,
        speechConfig,
        codeToolsConfig,
        sessionsConfig,
        metricsConfig,
        tracingConfig,
      ],
      validate: (raw: Record<string, unknown>) => {
        parseEnv(raw as Record<string, string | undefined>);
        return raw;
      },
    }),
  ],
  providers: [SecretRotation],
})
export class ConfigModule {}
