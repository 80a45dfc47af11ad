import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { llmConfig, type LlmConfig } from '../config/app.config.js';
import { LlmClient } from './llm.types.js';

/**
 * Checks the LLM server once the engine has started (see LlmClient.check: without LLM_MODEL, a
 * wrong address or key shows in the log before the first caller meets it), without holding
 * start-up up: the check runs on its own.
 */
@Injectable()
export class LlmServerCheck implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('LlmServer');
  private readonly stop = new AbortController();

  constructor(
    @Inject(llmConfig.KEY) private readonly config: LlmConfig,
    private readonly client: LlmClient,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.enabled) return;
    if (this.config.clientTls?.expired)
      this.logger.warn(`LLM_CLIENT_CERT_FILE: ${this.config.clientTls.expired}`);
    void this.client.check(this.stop.signal).then((problem) => {
      if (problem) this.logger.warn(problem);
    });
  }

  onModuleDestroy(): void {
    this.stop.abort();
  }
}
