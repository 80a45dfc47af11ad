import { HttpModule } from '@nestjs/axios';
import { Module } from '@nestjs/common';
import { CodeToolsModule } from '../code-tools/code-tools.module.js';
import { SessionsModule } from '../sessions/sessions.module.js';
import { LlmModule } from '../llm/llm.module.js';
import { ToolCircuitNews } from './circuit-news.js';
import { ReplicaTools } from './replica-tools.js';
import { HttpToolExecutor } from './http-tool.executor.js';
import { McpToolExecutor } from './mcp/mcp-tool.executor.js';
import { OAuth2Tokens } from './oauth2.js';
import { SharedTokens } from './shared-tokens.js';
import { sharedShelf } from '../cluster/shelf.js';
import { ClusterLink } from '../cluster/cluster-link.js';
import { SessionStore } from '../sessions/session-store.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';
import { ToolExecutor } from './tool-executor.js';
import { ToolRegistry } from './tool-registry.service.js';
import { ToolLoader } from './tool-loader.service.js';
import { ToolRouter } from './tool-router.executor.js';
import { ToolGuards } from './tool-guards.service.js';
import { ToolController } from './tool.controller.js';
import { ToolsController } from './tools.controller.js';
import { ToolTryController } from './tool-try.controller.js';
import { SessionEnds } from './session-ends.js';

@Module({
  // LlmModule: MCP servers' sampling requests are answered by the engine's model.
  imports: [HttpModule, CodeToolsModule, SessionsModule, LlmModule],
  controllers: [ToolsController, ToolController, ToolTryController],
  providers: [
    ToolRegistry,
    ToolLoader,
    HttpToolExecutor,
    McpToolExecutor,
    ToolGuards,
    ToolCircuitNews,
    ReplicaTools,
    { provide: SessionEnds, useFactory: () => new SessionEnds() },
    {
      provide: OAuth2Tokens,
      // Shared through Redis, else (ENGINE_PROCESSES) through the primary.
      useFactory: (metrics: EngineMetrics, store: SessionStore, cluster: ClusterLink) =>
        new OAuth2Tokens(
          (outcome) => metrics.toolSet.oauth2TokenRequest(outcome),
          new SharedTokens(sharedShelf(store, cluster, 'tokens')),
        ),
      inject: [EngineMetrics, SessionStore, ClusterLink],
    },
    { provide: ToolExecutor, useClass: ToolRouter },
  ],
  exports: [ToolRegistry, ToolExecutor, ToolGuards, SessionEnds, CodeToolsModule],
})
export class ToolsModule {}
