/** A spoken turn's exported spans: each sentence's synthesis, and the response. Pure: no Nest import. */
import type { SpanRef } from '../common/trace-context.js';
import type { SpeechOutcome } from '../metrics/speech-metrics.js';
import { SpanKind, type Spans } from '../tracing/spans.js';
import type { Took } from './speak-options.js';

/** A sentence's synthesis as an exported span, under its turn's. */
export function synthesisSpan(
  spans: Spans,
  parent: SpanRef,
  provider: string,
  outcome: SpeechOutcome,
  firstAudioSeconds: number | undefined,
  took: Took,
): void {
  const span = spans.child('synthesize', parent, {
    attributes: {
      'engine.tts.provider': provider,
      'engine.tts.characters': took.characters,
      ...(firstAudioSeconds !== undefined && {
        'engine.tts.first_audio_ms': Math.round(firstAudioSeconds * 1000),
      }),
      ...(outcome === 'cancelled' && { 'engine.interrupted': true }),
    },
    kind: SpanKind.CLIENT,
    startedAt: took.startedAt,
  });
  if (outcome === 'failed') span?.fail('tts_failed', 'speech synthesis failed');
  span?.end(took.endedAt);
}

/**
 * A spoken turn's response time as a span under it: from `since` (the user's turn ended) to the
 * answer's first audio sent (`at`), across the transcription, the completion and the synthesis.
 */
export function responseSpan(spans: Spans, parent: SpanRef, since: number, at: number): void {
  spans
    .child('respond', parent, {
      attributes: { 'engine.voice.response_ms': Math.round(at - since) },
      startedAt: since,
    })
    ?.end(at);
}
