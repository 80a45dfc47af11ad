import { Controller, Get, Header, Inject, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Registry } from 'prom-client';
import { ClusterLink } from '../cluster/cluster-link.js';
import { metricsConfig, type MetricsConfig } from '../config/app.config.js';
import { AdminKeyGuard } from '../tools/admin-key.guard.js';
import { refuse } from '../tools/tools-http.js';
import { EngineMetrics } from './engine-metrics.js';

/** `GET /metrics`: Prometheus text format; with ENGINE_PROCESSES, the sum over all processes. */
@ApiTags('metrics')
@ApiBearerAuth('admin')
@UseGuards(AdminKeyGuard)
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: EngineMetrics,
    private readonly cluster: ClusterLink,
    @Inject(metricsConfig.KEY) private readonly config: MetricsConfig,
  ) {}

  @Get()
  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  @ApiOperation({
    summary: 'Prometheus metrics: sessions, turns, latencies, LLM requests, tool calls, errors',
    description:
      'Text exposition format. With ENGINE_PROCESSES above 1, whichever process answers returns the metrics of all of them, summed.',
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'The metrics', schema: { type: 'string' } })
  @ApiUnauthorizedResponse({ description: 'ADMIN_API_KEY is set and the request lacks it' })
  @ApiNotFoundResponse({ description: 'METRICS_ENABLED=false' })
  async scrape(): Promise<string> {
    if (!this.config.enabled) throw refuse(404, 'metrics are off (METRICS_ENABLED=false)');
    return (await this.cluster.clusterMetrics()) ?? (await this.metrics.registry.metrics());
  }
}
