import { Global, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { AggregatorRegistry } from 'prom-client';
import cluster from 'node:cluster';
import { metricsConfig, type MetricsConfig } from '../config/app.config.js';
import { Lifecycle } from '../lifecycle/lifecycle.service.js';
import { EngineMetrics } from './engine-metrics.js';
import { MetricsController } from './metrics.controller.js';

/** In an engine process of a cluster, the primary collects this process's metrics over IPC. */
@Injectable()
class ClusterMetricsLink implements OnModuleInit {
  constructor(private readonly metrics: EngineMetrics) {}
  onModuleInit(): void {
    if (!cluster.isWorker) return;
    new AggregatorRegistry(); // installs prom-client's answer to the primary's requests
    AggregatorRegistry.setRegistries([this.metrics.registry]);
  }
}

/** Prometheus metrics of the engine (`GET /metrics`), for every module to report to. */
@Global()
@Module({
  providers: [
    {
      provide: EngineMetrics,
      inject: [Lifecycle, metricsConfig.KEY],
      useFactory: (lifecycle: Lifecycle, config: MetricsConfig) =>
        new EngineMetrics({ sessions: () => lifecycle.sessions, processMetrics: config.enabled }),
    },
    ClusterMetricsLink,
  ],
  controllers: [MetricsController],
  exports: [EngineMetrics],
})
export class MetricsModule {}
