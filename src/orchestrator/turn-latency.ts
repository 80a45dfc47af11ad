/**
 * A connection's answers to its user, timed for its end-of-session report (SESSION_WEBHOOK_URL):
 * for each measure of `TurnTimings`, the median, the 90th percentile and the longest over the
 * turns that had it, as voice platforms report a call's latency. Pure: no Nest import.
 */
import type { AudioTimings, TextTimings } from './turn-timings.js';

/** One measure over a connection's turns, in milliseconds. */
export interface LatencySummary {
  p50: number;
  p90: number;
  max: number;
  /** How many turns had it. */
  turns: number;
}

/** The measures reported, in their order. */
const MEASURES = [
  'first_text_ms',
  'first_audio_ms',
  'stt_ms',
  'llm_first_ms',
  'tools_ms',
  'tts_first_ms',
] as const;

export type LatencyMeasure = (typeof MEASURES)[number];

/** Turns measured at most, each measure: a conversation longer than that is summed up by its first. */
export const MAX_TURNS_MEASURED = 1000;

/** The `p`th percentile of `sorted` (nearest rank). */
const percentile = (sorted: number[], p: number) =>
  sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;

export class TurnLatency {
  private readonly values = new Map<LatencyMeasure, number[]>();

  /** A turn's text, or its speech, ended with these timings. */
  add(timings: TextTimings | AudioTimings): void {
    const measured = timings as Partial<Record<LatencyMeasure, number>>;
    for (const measure of MEASURES) {
      const value = measured[measure];
      if (value === undefined) continue;
      const values = this.values.get(measure);
      if (!values) this.values.set(measure, [value]);
      else if (values.length < MAX_TURNS_MEASURED) values.push(value);
    }
  }

  /** Each measure any turn had, summed up; undefined when no turn was measured. */
  summary(): Partial<Record<LatencyMeasure, LatencySummary>> | undefined {
    if (this.values.size === 0) return undefined;
    const summary: Partial<Record<LatencyMeasure, LatencySummary>> = {};
    for (const measure of MEASURES) {
      const values = this.values.get(measure);
      if (!values) continue;
      const sorted = [...values].sort((a, b) => a - b);
      summary[measure] = {
        p50: percentile(sorted, 0.5),
        p90: percentile(sorted, 0.9),
        max: sorted.at(-1)!,
        turns: sorted.length,
      };
    }
    return summary;
  }
}
