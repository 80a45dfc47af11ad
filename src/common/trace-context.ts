// W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` header that lets a
// tool's backend and the LLM server log a turn's requests under one trace id.
import { randomBytes, randomUUID } from 'node:crypto';

const TRACE_ID = /^[0-9a-f]{32}$/;

/** Where an exported span sits: what a request's `traceparent` says of the span it belongs to. */
export interface SpanRef {
  traceId: string;
  spanId: string;
  /** False when its trace is not recorded (OTEL_TRACES_SAMPLER): requests say so downstream. */
  sampled?: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-|$)/;

/**
 * The span a `traceparent` header names (W3C Trace Context: a version other than `ff`, ids not all
 * zeros; a later version may add fields after the flags), or undefined for anything else.
 */
export function parseTraceparent(header: string | string[] | undefined): SpanRef | undefined {
  if (typeof header !== 'string') return undefined;
  const m = TRACEPARENT.exec(header.trim());
  if (!m || m[1] === 'ff' || (m[1] === '00' && m[4] !== '')) return undefined;
  if (/^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined;
  return { traceId: m[2]!, spanId: m[3]! };
}

/** The trace id of a turn: its id (a UUID) without dashes, so that logs' turn_id finds it; else random. */
export function traceIdOf(turnId: string): string {
  const hex = turnId.replace(/-/g, '').toLowerCase();
  return TRACE_ID.test(hex) && !/^0+$/.test(hex) ? hex : randomBytes(16).toString('hex');
}

/**
 * A span id: 16 random hex digits, from a random UUID's (Node makes them from a pooled buffer of
 * random bytes; a `randomBytes` call per request asks the kernel each time).
 */
function spanId(): string {
  const uuid = randomUUID(); // xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx: the x are random
  const id = uuid.slice(0, 8) + uuid.slice(9, 13) + uuid.slice(24, 28);
  return id === '0000000000000000' ? spanId() : id;
}

/**
 * The `traceparent` of one request of trace `traceId`: its parent the exported span `parent`
 * belongs to (sampled, unless that span's trace is not recorded), or a fresh id, sampled.
 */
export function traceparent(traceId: string, parent?: SpanRef): string {
  return `00-${traceId}-${parent?.spanId ?? spanId()}-${parent?.sampled === false ? '00' : '01'}`;
}

/**
 * `headers` with a `traceparent` for `traceId` (under span `parent`, if given), unless there is
 * none or they set one already.
 */
export function withTraceparent(
  headers: Record<string, string>,
  traceId: string | undefined,
  parent?: SpanRef,
): Record<string, string> {
  if (traceId === undefined || Object.keys(headers).some((h) => h.toLowerCase() === 'traceparent'))
    return headers;
  return { ...headers, traceparent: traceparent(traceId, parent) };
}
