import { Module } from '@nestjs/common';
import { ClusterModule } from './cluster/cluster.module.js';
import { ConfigModule } from './config/config.module.js';
import { DemoController } from './demo/demo.controller.js';
import { HealthModule } from './health/health.module.js';
import { LifecycleModule } from './lifecycle/lifecycle.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { OrchestratorModule } from './orchestrator/orchestrator.module.js';
import { ToolsModule } from './tools/tools.module.js';
import { TracingModule } from './tracing/tracing.module.js';

@Module({
  imports: [
    ConfigModule,
    ClusterModule,
    LifecycleModule,
    MetricsModule,
    TracingModule,
    ToolsModule,
    OrchestratorModule,
    HealthModule,
  ],
  controllers: [DemoController],
})
export class AppModule {}
