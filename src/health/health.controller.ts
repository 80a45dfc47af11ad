import { egressProxyName } from '../common/egress.js';
import { Controller, Get, HttpStatus, Inject, Res } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { appConfig, type AppConfig } from '../config/app.config.js';
import { Lifecycle } from '../lifecycle/lifecycle.service.js';
import { SessionStore } from '../sessions/session-store.js';
import { ToolGuards } from '../tools/tool-guards.service.js';
import { ToolRegistry } from '../tools/tool-registry.service.js';

class HealthDto {
  @ApiProperty({
    description: '`draining` (with HTTP 503) once the engine is stopping: take it out of rotation',
    example: 'ok',
    enum: ['ok', 'draining'],
  })
  status!: 'ok' | 'draining';

  @ApiProperty({
    description: 'The engine process that answered (several share the port with ENGINE_PROCESSES)',
    example: 4242,
  })
  pid!: number;

  @ApiProperty({ description: 'Seconds since start-up', example: 3600 })
  uptime_secs!: number;

  @ApiProperty({
    description: 'Event loop delay p99 over the last minute, in milliseconds',
    example: 3.2,
  })
  event_loop_delay_p99_ms!: number;

  @ApiProperty({
    description:
      'WebSocket sessions open in the process that answered, and its WS_MAX_SESSIONS (null: no limit)',
    example: { open: 12, max: null },
  })
  sessions!: { open: number; max: number | null };

  @ApiProperty({
    description:
      'Where sessions are kept for resuming (SESSION_STORE_URL) and whether it can be reached now; while it cannot, sessions start afresh',
    example: { kind: 'redis', connected: true },
  })
  session_store!: { kind: 'memory' | 'redis'; connected: boolean };

  @ApiProperty({
    description:
      'The egress proxy outbound requests go through (EGRESS_PROXY, without its credentials); null when none is set',
    example: 'http://proxy.corp:3128',
    nullable: true,
    type: String,
  })
  egress_proxy!: string | null;

  @ApiProperty({
    description:
      'Active tool definitions, where they come from, and the HTTP tools whose calls this process does not send now, their service having failed LLM_TOOL_BREAKER_FAILURES calls in a row',
    example: { count: 10, source: 'file', unavailable: ['crm_lookup'] },
  })
  tools!: { count: number; source: string; unavailable: string[] };
}

const loop = monitorEventLoopDelay({ resolution: 20 });
loop.enable();
setInterval(() => loop.reset(), 60_000).unref();

/** Liveness and readiness for orchestrators such as Kubernetes: the process serves and its tools are loaded. */
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly guards: ToolGuards,
    private readonly lifecycle: Lifecycle,
    private readonly store: SessionStore,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  /**
   * For a liveness probe: 200 while the process serves HTTP, also while it drains (a restart
   * then would cut the turns it is letting finish). Readiness is `GET /health`.
   */
  @Get('live')
  @ApiOperation({
    summary: 'Liveness probe: 200 while the process serves, draining or not',
  })
  @ApiOkResponse({ schema: { type: 'object', properties: { status: { enum: ['alive'] } } } })
  live(): { status: 'alive' } {
    return { status: 'alive' };
  }

  @Get()
  @ApiOperation({ summary: 'Readiness probe (and liveness where nothing drains)' })
  @ApiOkResponse({ type: HealthDto })
  @ApiServiceUnavailableResponse({
    type: HealthDto,
    description: 'The engine is stopping (SIGTERM): sessions are draining, new ones are refused',
  })
  health(@Res({ passthrough: true }) res: { status(code: number): unknown }): HealthDto {
    const snapshot = this.registry.active();
    const draining = this.lifecycle.draining;
    if (draining) res.status(HttpStatus.SERVICE_UNAVAILABLE);
    return {
      status: draining ? 'draining' : 'ok',
      pid: process.pid,
      uptime_secs: Math.round(process.uptime()),
      event_loop_delay_p99_ms: Math.round((loop.percentile(99) / 1e6) * 10) / 10,
      sessions: { open: this.lifecycle.sessions, max: this.config.ws.maxSessions || null },
      session_store: { kind: this.store.kind, connected: this.store.connected },
      egress_proxy: egressProxyName() || null,
      tools: {
        count: snapshot.definitions.length,
        source: snapshot.source,
        // Circuits open, and tools whose MCP server or OpenAPI document was down at loading.
        unavailable: [
          ...new Set([...this.guards.unavailableTools(), ...this.registry.pendingTools()]),
        ],
      },
    };
  }
}
