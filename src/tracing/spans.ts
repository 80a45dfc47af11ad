/**
 * Spans of the engine's work — a turn, each completion request, each tool call — exported to an
 * OpenTelemetry collector over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT), with OpenTelemetry's own
 * SDK. A turn's trace id is its `turn_id` without dashes, as its `traceparent` headers already say;
 * each request's `traceparent` names the span it belongs to, so a tool's backend or the LLM server
 * puts its own spans under it. Unset, nothing is made, and the SDK is not even loaded (it would take
 * some 12 MB of every process's heap). Pure: no Nest import.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { pid } from 'node:process';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Attributes,
  type Span as OtelSpan,
  type Tracer,
} from '@opentelemetry/api';
import type { IdGenerator } from '@opentelemetry/sdk-trace-base';
import { egressAgents } from '../common/egress.js';
import type { SpanRef } from '../common/trace-context.js';
import type { TracingSettings } from '../config/otel-env.js';

export type { SpanRef };

/** A span under way. */
export interface Span {
  readonly ref: SpanRef;
  set(attributes: Attributes): void;
  /** Marks it failed: `error.type` and the status's message (never arguments or user text). */
  fail(type: string, message: string): void;
  /** Ends it now, or at `endedAt` (`performance.now()`). */
  end(endedAt?: number): void;
}

export { SpanKind };

/**
 * Trace ids as the engine chooses them: a turn's root span takes the id its `traceparent` headers
 * carry. Set just before the span is started (synchronously), so no other span can take it.
 */
class TurnIds implements IdGenerator {
  next: string | undefined;
  constructor(private readonly random: IdGenerator) {}
  generateTraceId(): string {
    const id = this.next ?? this.random.generateTraceId();
    this.next = undefined;
    return id;
  }
  generateSpanId(): string {
    return this.random.generateSpanId();
  }
}

function wrap(span: OtelSpan): Span {
  const { traceId, spanId, traceFlags } = span.spanContext();
  const sampled = (traceFlags & Number(TraceFlags.SAMPLED)) !== 0;
  return {
    ref: { traceId, spanId, ...(!sampled && { sampled }) },
    set: (attributes) => span.setAttributes(attributes),
    fail: (type, message) => {
      span.setAttribute('error.type', type);
      span.setStatus({ code: SpanStatusCode.ERROR, message });
    },
    end: (endedAt) => span.end(endedAt === undefined ? undefined : epochMs(endedAt)),
  };
}

/** A `performance.now()` time as OpenTelemetry takes it: milliseconds since the epoch. */
const epochMs = (time: number) => performance.timeOrigin + time;

/** What a span is, besides its name and where it sits. */
export interface SpanOptions {
  attributes?: Attributes;
  kind?: SpanKind;
  /** Another trace's span it links to (the client's connection). */
  linked?: SpanRef;
  /** When it began (`performance.now()`), if before now. */
  startedAt?: number;
}

function startOptions({ attributes, kind = SpanKind.INTERNAL, linked, startedAt }: SpanOptions) {
  return {
    kind,
    attributes,
    ...(linked && { links: [{ context: { ...linked, traceFlags: TraceFlags.SAMPLED } }] }),
    ...(startedAt !== undefined && { startTime: epochMs(startedAt) }),
  };
}

/**
 * The exporter's connections through the egress proxy (EGRESS_PROXY), with the collector's CA and
 * the client certificate of OTEL_EXPORTER_OTLP_CERTIFICATE and the like (`tls`); or undefined
 * when no proxy is set: the exporter's own then, which read those itself.
 */
function proxied(
  tls: TracingSettings['tls'],
): ((protocol: string) => HttpAgent | HttpsAgent) | undefined {
  const direct = {
    http: new HttpAgent({ keepAlive: true }),
    https: new HttpsAgent({ keepAlive: true, ...tls }),
  };
  const egress = egressAgents(tls, { keepAlive: true, direct, tls });
  return egress && ((protocol) => (protocol === 'https:' ? egress.https : egress.http));
}

/**
 * One of the SDK's complaints as an operator reads it: an export's failure comes as the error's
 * JSON (its stack and all), said here by its message.
 */
export function complaintText(message: string, args: unknown[] = []): string {
  let error: unknown;
  try {
    error = JSON.parse(message);
  } catch {
    error = undefined;
  }
  const cause = (error as { message?: unknown } | undefined)?.message;
  if (typeof cause === 'string') return `spans could not be exported: ${cause}`;
  return [message, ...args.map(String)].join(' ');
}

/** The engine's spans; `enabled` false (no collector set) makes none, at no cost. */
export class Spans {
  /** No collector: no spans. */
  static readonly off = new Spans();

  private constructor(
    private readonly tracer?: Tracer,
    private readonly ids?: TurnIds,
    private readonly provider?: { shutdown(): Promise<void> },
  ) {}

  /** The spans `settings` ask for, OpenTelemetry's SDK loaded only when they ask for any. */
  static async load(settings: TracingSettings, version = ''): Promise<Spans> {
    if (!settings.url) return Spans.off;
    const [sdk, { resourceFromAttributes }, { OTLPTraceExporter }] = await Promise.all([
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/resources'),
      settings.protocol === 'http/json'
        ? import('@opentelemetry/exporter-trace-otlp-http')
        : import('@opentelemetry/exporter-trace-otlp-proto'),
    ]);
    const agents = proxied(settings.tls);
    const exporter = new OTLPTraceExporter({
      url: settings.url,
      // Read at each export: headers rotated in their file (SECRET_FILES_WATCH_SECS) count at once.
      headers: () => Promise.resolve({ ...settings.headers }),
      ...(agents && { httpAgentOptions: agents }),
    });
    const ids = new TurnIds(new sdk.RandomIdGenerator());
    // A turn's span decides by its trace id (OTEL_TRACES_SAMPLER); the spans under it follow it.
    const root = new sdk.TraceIdRatioBasedSampler(settings.sampleRatio);
    const provider = new sdk.BasicTracerProvider({
      sampler: new sdk.ParentBasedSampler({ root }),
      resource: resourceFromAttributes({
        'service.name': settings.serviceName,
        ...(version && { 'service.version': version }),
        'process.pid': pid,
        ...settings.resourceAttributes,
      }),
      idGenerator: ids,
      spanProcessors: [
        new sdk.BatchSpanProcessor(exporter, { scheduledDelayMillis: settings.scheduleDelayMs }),
      ],
    });
    return new Spans(provider.getTracer('agent-engine', version || undefined), ids, provider);
  }

  get enabled(): boolean {
    return this.tracer !== undefined;
  }

  /** A trace's first span, whose trace id is `traceId`. */
  root(name: string, traceId: string, options: SpanOptions = {}): Span | undefined {
    if (!this.tracer || !this.ids) return undefined;
    this.ids.next = traceId;
    try {
      return wrap(this.tracer.startSpan(name, { ...startOptions(options), root: true }));
    } finally {
      this.ids.next = undefined;
    }
  }

  /** A span under `parent`. */
  child(name: string, parent: SpanRef, options: SpanOptions = {}): Span | undefined {
    if (!this.tracer) return undefined;
    const context = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: parent.traceId,
      spanId: parent.spanId,
      traceFlags: parent.sampled === false ? TraceFlags.NONE : TraceFlags.SAMPLED,
    });
    return wrap(this.tracer.startSpan(name, startOptions(options), context));
  }

  /** Sends the spans still waiting, then stops. */
  async shutdown(): Promise<void> {
    await this.provider?.shutdown();
  }
}
