import { Global, Inject, Injectable, Logger, Module, type OnModuleInit } from '@nestjs/common';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { tracingConfig, type TracingConfig } from '../config/app.config.js';
import { ENGINE_VERSION } from '../version.js';
import { complaintText, Spans } from './spans.js';
import { Lifecycle } from '../lifecycle/lifecycle.service.js';

const WARNING_INTERVAL_MS = 60_000;
/**
 * How long a stopping engine waits for its last spans to reach the collector (its exporter
 * would wait 10 s for one that does not answer): a part of the stop's time, which an
 * orchestrator's grace period bounds (README, "Stopping without cutting anyone off").
 */
const LAST_EXPORT_MS = 5000;

/** Says where spans go, says why an export failed, and sends the last spans when the engine stops. */
@Injectable()
class SpanExport implements OnModuleInit {
  private readonly logger = new Logger('Tracing');
  private warnedAt = -Infinity;
  private unsaid = 0;

  constructor(
    private readonly spans: Spans,
    @Inject(tracingConfig.KEY) private readonly config: TracingConfig,
    lifecycle: Lifecycle,
  ) {
    lifecycle.lastly('the last spans', () => this.sendLast(), {
      ms: LAST_EXPORT_MS,
      late: () =>
        `the last spans were not sent to the collector: no answer within ${LAST_EXPORT_MS / 1000}s`,
    });
  }

  onModuleInit(): void {
    if (!this.spans.enabled) return;
    // The SDK's own complaints (a collector down or refusing) reach the engine's log, once a
    // minute at most: a collector down must not fill the log with one line per batch.
    const say = (message: string, ...args: unknown[]) => {
      const now = Date.now();
      if (now - this.warnedAt < WARNING_INTERVAL_MS) {
        this.unsaid++;
        return;
      }
      const more = this.unsaid ? ` (and ${this.unsaid} more in the last minute)` : '';
      this.logger.warn(`${complaintText(message, args)}${more}`);
      this.warnedAt = now;
      this.unsaid = 0;
    };
    diag.setLogger(
      { error: say, warn: say, info: () => {}, debug: () => {}, verbose: () => {} },
      { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
    );
    const url = new URL(this.config.url); // without credentials, should it hold any
    this.logger.log(
      `spans of turns, completions and tool calls go to ${url.origin}${url.pathname} (${this.config.protocol}) as ${this.config.serviceName}`,
    );
  }

  /** The last spans sent (for at most LAST_EXPORT_MS: the Lifecycle's bound). */
  private async sendLast(): Promise<void> {
    if (!this.spans.enabled) return;
    const unsent = await this.spans.shutdown().then(
      () => undefined,
      (error: unknown) => (error as Error).message,
    );
    if (unsent) this.logger.warn(`the last spans were not sent to the collector: ${unsent}`);
    diag.disable();
  }
}

/** OpenTelemetry spans (OTEL_EXPORTER_OTLP_ENDPOINT), for every module to start its own. */
@Global()
@Module({
  providers: [
    {
      provide: Spans,
      inject: [tracingConfig.KEY],
      useFactory: (config: TracingConfig) => Spans.load(config, ENGINE_VERSION),
    },
    SpanExport,
  ],
  exports: [Spans],
})
export class TracingModule {}
