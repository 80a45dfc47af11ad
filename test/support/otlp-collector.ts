import { RecordingServer } from './recording-server.js';
import type { TlsOptions } from './tls.js';

/** One span as an OpenTelemetry collector received it over OTLP/HTTP JSON. */
export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** 2 is an error. */
  status: { code?: number; message?: string };
  resource: Record<string, unknown>;
  /** Spans of other traces it links to. */
  links: { traceId: string; spanId: string }[];
  /** Its start and end, in milliseconds since the epoch. */
  start: number;
  end: number;
}

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

function valueOf(value: AnyValue): unknown {
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.doubleValue ?? value.boolValue;
}

const attributesOf = (list: KeyValue[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));

/** A real HTTP server taking OTLP exports (`POST /v1/traces`), as an OpenTelemetry collector does. */
export class OtlpCollector extends RecordingServer {
  /** With `tls`, it speaks HTTPS (and may ask for client certificates). */
  constructor(tls?: TlsOptions) {
    super(tls);
    this.respond((_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end('{}');
    });
  }

  /** Every span of the JSON exports received so far. */
  spans(): ExportedSpan[] {
    return this.requests
      .filter((r) => String(r.headers['content-type']).startsWith('application/json'))
      .flatMap((r) => (JSON.parse(r.body) as { resourceSpans: any[] }).resourceSpans)
      .flatMap((rs) =>
        (rs.scopeSpans as any[]).flatMap((ss) =>
          (ss.spans as any[]).map((s): ExportedSpan => ({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId || undefined,
            name: s.name,
            kind: s.kind,
            attributes: attributesOf(s.attributes),
            status: s.status ?? {},
            resource: attributesOf(rs.resource?.attributes),
            links: ((s.links ?? []) as any[]).map((l) => ({
              traceId: l.traceId,
              spanId: l.spanId,
            })),
            start: Number(BigInt(s.startTimeUnixNano) / 1000n) / 1000,
            end: Number(BigInt(s.endTimeUnixNano) / 1000n) / 1000,
          })),
        ),
      );
  }
}
