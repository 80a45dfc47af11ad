/**
 * The formats of string arguments checked before a call runs: a date a model wrote "tomorrow",
 * "12/06/2026" (June or December?) or "2026-02-30" is refused, telling it the form, where the
 * backend got it and refused it or, worse, read another day. Times are taken as ISO 8601 and
 * Python's `fromisoformat` take them: seconds and a time zone optional, `T` or a space between
 * date and time. Other formats (`uri`, `hostname`, …) are not checked. Pure: no Nest import.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME =
  /^(?:[01]\d|2[0-3]):[0-5]\d(?::(?:[0-5]\d|60)(?:[.,]\d+)?)?(?:[zZ]|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?$/;

function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  // Day 0 of the next month is the last of this one.
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= last;
}

const isTime = (text: string) => TIME.test(text);

function isDateTime(text: string): boolean {
  const parts = text.split(/[Tt ]/);
  return parts.length === 2 && isDate(parts[0]!) && isTime(parts[1]!);
}

/** The checks, by format name, for Ajv's `formats` option. */
export const ARGUMENT_FORMATS = {
  date: isDate,
  time: isTime,
  'date-time': isDateTime,
  email: fullFormats.email,
  uuid: fullFormats.uuid,
};

/** How a value of each format is written, for the model that wrote one otherwise. */
const FORMS: Record<string, string> = {
  date: 'a day of the calendar, YYYY-MM-DD',
  time: 'HH:MM, or HH:MM:SS',
  'date-time': 'YYYY-MM-DDTHH:MM, or with seconds, and a time zone such as +01:00 or Z if known',
  uuid: '8-4-4-4-12 hexadecimal digits',
};

/** The form a value of `format` is written in, as words for the model; '' when none is told. */
export function formatForm(format: unknown): string {
  const form = typeof format === 'string' ? FORMS[format] : undefined;
  return form ? ` (${form})` : '';
}
