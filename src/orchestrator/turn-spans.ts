/**
 * The exported spans of a turn (OTEL_EXPORTER_OTLP_ENDPOINT): the turn itself, under it each
 * completion request (tool calls have theirs from the tool router). Pure: no Nest import.
 */
import { traceIdOf, type SpanRef } from '../common/trace-context.js';
import type { LlmRequest, LlmUsage } from '../llm/llm.types.js';
import { completionAttributes } from '../tracing/span-attributes.js';
import { SpanKind, type Span, type Spans } from '../tracing/spans.js';
import { failureEvent } from './round.js';
import type { Session } from './session.js';
import type { Transcription } from '../speech/speech.service.js';

export type { Transcription };

/**
 * A turn's span, whose trace id is its id's (the `traceparent` its requests carry), linked to the
 * client's connection; a spoken turn's begins with its transcription, a span of its own.
 */
export function turnSpan(
  spans: Spans,
  session: Session,
  turnId: string,
  heard?: Transcription,
): Span | undefined {
  const span = spans.root('turn', traceIdOf(turnId), {
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.conversation.id': session.id,
      'session.id': session.id,
      'engine.turn_id': turnId,
      'engine.modality': session.settings.modality,
    },
    linked: session.connectedFrom,
    ...(heard && { startedAt: heard.startedAt }),
  });
  if (span && heard)
    spans
      .child('transcribe', span.ref, {
        attributes: { 'engine.stt.provider': heard.provider },
        kind: SpanKind.CLIENT,
        startedAt: heard.startedAt,
      })
      ?.end(heard.endedAt);
  return span;
}

/** How the turn went; a failure's code and message are the `error` event's. */
export function endSpan(
  span: Span | undefined,
  error: unknown,
  attributes: { usage?: LlmUsage } = {},
): void {
  if (!span) return;
  if (attributes.usage) span.set(completionAttributes(null, attributes.usage));
  const failed = error === undefined ? undefined : failureEvent(error);
  if (failed) span.fail(failed.code, failed.message);
  else if (error !== undefined) span.set({ 'engine.interrupted': true });
  span.end();
}

/** A completion request's span, under the turn's; the model as the request names it, if it does. */
export function completionSpan(
  spans: Spans,
  parent: SpanRef | undefined,
  request: LlmRequest,
  streamed: boolean,
  model: string,
): Span | undefined {
  if (!parent) return undefined;
  const named = request.model ?? model;
  return spans.child(named ? `chat ${named}` : 'chat', parent, {
    attributes: {
      'gen_ai.operation.name': 'chat',
      ...(named && { 'gen_ai.request.model': named }),
      'engine.streamed': streamed,
      'engine.tools_offered': request.tools.length,
    },
    kind: SpanKind.CLIENT,
  });
}
