/**
 * Dates as users say them ("March 3rd 1990", "next Friday at 5 pm", "3 marzo 1990"), written in
 * the form a field's `format` asks (`date`: 1990-03-03; `date-time`: ISO 8601, UTC), read with
 * chrono-node in the session's language (and English). Loaded at the first date question, not
 * at start-up. Pure: no Nest import.
 */
import type * as ChronoModule from 'chrono-node';
import { languageCode } from '../common/language-code.js';
import { offsetMinutes, wallClock } from '../common/clock.js';

/** The formats a date said aloud is written in. */
export const DATE_FORMATS: ReadonlySet<string> = new Set(['date', 'date-time']);

/** Reads a date in `text`, written as `format` asks; undefined when it holds none. */
export type DateReader = (text: string, format: string) => string | undefined;

let loading: Promise<typeof ChronoModule> | undefined;

/**
 * The reader of dates said in `language` (a code: `it`, `pt-BR`), English's too, by a user in
 * `timeZone` (an IANA name): "tomorrow at 5 pm" is their tomorrow, at 5 pm on their clock.
 */
export async function dateReader(
  language: string,
  timeZone = 'UTC',
  now: () => Date = () => new Date(),
): Promise<DateReader> {
  const chrono = await (loading ??= import('chrono-node'));
  const locale = (chrono as unknown as Record<string, { casual?: ChronoModule.Chrono }>)[
    languageCode(language)
  ];
  const parsers = [locale?.casual, chrono.casual].filter((p) => p !== undefined);
  return (text, format) => {
    const instant = now();
    const reference = { instant, timezone: offsetMinutes(instant, timeZone) };
    for (const parser of parsers) {
      const date = parser.parseDate(text, reference);
      if (!date) continue;
      // The day as said: on the user's clock.
      return format === 'date' ? wallClock(date, timeZone).day : date.toISOString();
    }
    return undefined;
  };
}
