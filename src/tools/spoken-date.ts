/**
 * Dates as users say them ("March 3rd 1990", "next Friday at 5 pm", "3 marzo 1990"), written in
 * the form a field's `format` asks (`date`: 1990-03-03; `date-time`: ISO 8601, UTC), read with
 * chrono-node in the session's language (and English). Loaded at the first date question, not
 * at start-up. Pure: no Nest import.
 */
import type * as ChronoModule from 'chrono-node';
import { languageCode } from './answer-words.js';

/** The formats a date said aloud is written in. */
export const DATE_FORMATS: ReadonlySet<string> = new Set(['date', 'date-time']);

/** Reads a date in `text`, written as `format` asks; undefined when it holds none. */
export type DateReader = (text: string, format: string) => string | undefined;

let loading: Promise<typeof ChronoModule> | undefined;

const twoDigits = (n: number) => String(n).padStart(2, '0');

/** The reader of dates said in `language` (a code: `it`, `pt-BR`), English's too. */
export async function dateReader(language: string): Promise<DateReader> {
  const chrono = await (loading ??= import('chrono-node'));
  const locale = (chrono as unknown as Record<string, { casual?: ChronoModule.Chrono }>)[
    languageCode(language)
  ];
  const parsers = [locale?.casual, chrono.casual].filter((p) => p !== undefined);
  return (text, format) => {
    for (const parser of parsers) {
      const date = parser.parseDate(text);
      if (!date) continue;
      if (format !== 'date') return date.toISOString();
      // The day as said: chrono sets it in the engine's own time zone.
      return `${date.getFullYear()}-${twoDigits(date.getMonth() + 1)}-${twoDigits(date.getDate())}`;
    }
    return undefined;
  };
}
