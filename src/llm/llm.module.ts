import { Module } from '@nestjs/common';
import { LlmClient } from './llm.types.js';
import { OpenAiLlmClient } from './openai-llm.client.js';

@Module({
  providers: [{ provide: LlmClient, useClass: OpenAiLlmClient }],
  exports: [LlmClient],
})
export class LlmModule {}
