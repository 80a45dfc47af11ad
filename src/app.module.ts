import { Module } from '@nestjs/common';
import { ConfigModule } from './config/config.module.js';
import { HealthModule } from './health/health.module.js';
import { LifecycleModule } from './lifecycle/lifecycle.module.js';
import { OrchestratorModule } from './orchestrator/orchestrator.module.js';
import { ToolsModule } from './tools/tools.module.js';

@Module({
  imports: [ConfigModule, LifecycleModule, ToolsModule, OrchestratorModule, HealthModule],
})
export class AppModule {}
