/**
 * Spans of the engine's work — a turn, each completion request, each tool call — exported to an
 * OpenTelemetry collector over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT), with OpenTelemetry's own
 * SDK. A turn's trace id is its `turn_id` without dashes, as its `traceparent` headers already say;
 * each request's `traceparent` names the span it belongs to, so a tool's backend or the LLM server
 * puts its own spans under it. Unset, nothing is made. Pure: no Nest import.
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
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  RandomIdGenerator,
  type IdGenerator,
} from '@opentelemetry/sdk-trace-base';
import { egressAgents } from '../common/egress.js';
import type { TracingSettings } from '../config/otel-env.js';

import type { SpanRef } from '../common/trace-context.js';

export type { SpanRef };

/** A span under way. */
export interface Span {
  readonly ref: SpanRef;
  set(attributes: Attributes): void;
  /** Marks it failed: `error.type` and the status's message (never arguments or user text). */
  fail(type: string, message: string): void;
  end(): void;
}

export { SpanKind };

/**
 * Trace ids as the engine chooses them: a turn's root span takes the id its `traceparent` headers
 * carry. Set just before the span is started (synchronously), so no other span can take it.
 */
class TurnIds implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  next: string | undefined;
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
  const { traceId, spanId } = span.spanContext();
  return {
    ref: { traceId, spanId },
    set: (attributes) => span.setAttributes(attributes),
    fail: (type, message) => {
      span.setAttribute('error.type', type);
      span.setStatus({ code: SpanStatusCode.ERROR, message });
    },
    end: () => span.end(),
  };
}

/**
 * The exporter's connections through the egress proxy (EGRESS_PROXY), or undefined when none is
 * set: the exporter's own then, which take OTEL_EXPORTER_OTLP_CERTIFICATE and the like.
 */
function proxied(): ((protocol: string) => HttpAgent | HttpsAgent) | undefined {
  const egress = egressAgents('otlp', { keepAlive: true });
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
  private readonly provider: BasicTracerProvider | undefined;
  private readonly tracer: Tracer | undefined;
  private readonly ids = new TurnIds();

  constructor(settings: TracingSettings, version = '') {
    if (!settings.url) return;
    const agents = proxied();
    const config = {
      url: settings.url,
      headers: settings.headers,
      ...(agents && { httpAgentOptions: agents }),
    };
    const exporter =
      settings.protocol === 'http/json' ? new JsonExporter(config) : new ProtobufExporter(config);
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({
        'service.name': settings.serviceName,
        ...(version && { 'service.version': version }),
        'process.pid': pid,
        ...settings.resourceAttributes,
      }),
      idGenerator: this.ids,
      spanProcessors: [
        new BatchSpanProcessor(exporter, { scheduledDelayMillis: settings.scheduleDelayMs }),
      ],
    });
    this.tracer = this.provider.getTracer('agent-engine', version || undefined);
  }

  get enabled(): boolean {
    return this.tracer !== undefined;
  }

  /**
   * A trace's first span, whose trace id is `traceId`; linked to the span `linked`, if given (the
   * client's connection, in a trace of its own).
   */
  root(
    name: string,
    traceId: string,
    attributes: Attributes,
    linked?: SpanRef,
    kind = SpanKind.INTERNAL,
  ): Span | undefined {
    if (!this.tracer) return undefined;
    const links = linked && [{ context: { ...linked, traceFlags: TraceFlags.SAMPLED } }];
    this.ids.next = traceId;
    try {
      return wrap(this.tracer.startSpan(name, { kind, attributes, root: true, links }));
    } finally {
      this.ids.next = undefined;
    }
  }

  /** A span under `parent`. */
  child(
    name: string,
    parent: SpanRef,
    attributes: Attributes,
    kind = SpanKind.INTERNAL,
  ): Span | undefined {
    if (!this.tracer) return undefined;
    const context = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: parent.traceId,
      spanId: parent.spanId,
      traceFlags: TraceFlags.SAMPLED,
    });
    return wrap(this.tracer.startSpan(name, { kind, attributes }, context));
  }

  /** Sends the spans still waiting, then stops. */
  async shutdown(): Promise<void> {
    await this.provider?.shutdown();
  }
}
