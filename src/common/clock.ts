/**
 * The current moment as a session's user has it: in their time zone (an IANA name,
 * `Europe/Rome`), for the model's system message (LLM_CLOCK) and for dates said aloud. Pure: no
 * Nest import.
 */
import { languageCode } from './language-code.js';

/** What the model is told of the current moment: the day, the day and time, or nothing. */
export type ClockMode = 'date' | 'time' | 'off';

export const CLOCK_MODES: readonly ClockMode[] = ['date', 'time', 'off'];

/** `name`'s canonical spelling ("europe/rome" is "Europe/Rome"), or undefined for no time zone. */
export function timeZoneNamed(name: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

const parts = new Map<string, Intl.DateTimeFormat>();
const days = new Map<string, Intl.DateTimeFormat>();

function partsOf(timeZone: string): Intl.DateTimeFormat {
  let kept = parts.get(timeZone);
  if (!kept) {
    kept = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    });
    parts.set(timeZone, kept);
  }
  return kept;
}

/** The day written out in `locale` ("Friday, 4 December 2026", "venerdì 4 dicembre 2026"). */
function dayOf(instant: Date, timeZone: string, locale: string): string {
  const key = `${timeZone} ${locale}`;
  let kept = days.get(key);
  if (!kept) {
    const options: Intl.DateTimeFormatOptions = {
      timeZone,
      weekday: 'long',
      day: 'numeric',
      month: 'long',
      year: 'numeric',
    };
    days.set(key, (kept = new Intl.DateTimeFormat(locale, options)));
  }
  return kept.format(instant);
}

/**
 * The clock line in the languages of the default phrases (`said`: the day written out, `at`: its
 * ISO form, the time zone's name): a system prompt in Italian is not followed by a line in
 * English that could draw the model's answers into English.
 */
const LINES: Record<string, { date: string; time: string; locale?: string }> = {
  en: {
    date: 'Today is {said} ({at}), time zone {zone}.',
    time: 'It is {time} on {said} ({at}), time zone {zone}.',
    locale: 'en-GB',
  },
  it: {
    date: 'Oggi è {said} ({at}), fuso orario {zone}.',
    time: 'Sono le {time} di {said} ({at}), fuso orario {zone}.',
  },
  es: {
    date: 'Hoy es {said} ({at}), zona horaria {zone}.',
    time: 'Son las {time} del {said} ({at}), zona horaria {zone}.',
  },
  fr: {
    date: 'Nous sommes le {said} ({at}), fuseau horaire {zone}.',
    time: 'Il est {time}, le {said} ({at}), fuseau horaire {zone}.',
  },
  de: {
    date: 'Heute ist {said} ({at}), Zeitzone {zone}.',
    time: 'Es ist {time} Uhr am {said} ({at}), Zeitzone {zone}.',
  },
  pt: {
    date: 'Hoje é {said} ({at}), fuso horário {zone}.',
    time: 'São {time} de {said} ({at}), fuso horário {zone}.',
  },
};

/** The wall clock in `timeZone` at `instant`: `2026-12-04`, `22:31`, `+01:00`. */
export function wallClock(
  instant: Date,
  timeZone: string,
): { day: string; time: string; offset: string } {
  const of = Object.fromEntries(
    partsOf(timeZone)
      .formatToParts(instant)
      .map((p) => [p.type, p.value]),
  );
  const offset = /GMT([+-]\d{2}:\d{2})/.exec(of.timeZoneName ?? '')?.[1] ?? '+00:00';
  return { day: `${of.year}-${of.month}-${of.day}`, time: `${of.hour}:${of.minute}`, offset };
}

/** Minutes `timeZone` is ahead of UTC at `instant` (Rome in winter: 60). */
export function offsetMinutes(instant: Date, timeZone: string): number {
  const [sign, hours, minutes] = /^([+-])(\d{2}):(\d{2})$/
    .exec(wallClock(instant, timeZone).offset)!
    .slice(1);
  return (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
}

/**
 * The line of the system message that tells the model the current moment in the user's time
 * zone ("Today is Friday, 4 December 2026 (2026-12-04), time zone Europe/Rome."), in the session's
 * `language` (English for a language not in LINES), or '' (`off`).
 */
export function clockLine(
  mode: ClockMode,
  timeZone: string,
  instant = new Date(),
  language = 'en',
): string {
  if (mode === 'off') return '';
  // By language alone (the day is written alike in pt-BR and pt-PT): formats kept are bounded.
  const base = languageCode(language);
  // The line changes from one minute to the next at most (a day starts on a minute in every time
  // zone): formatting it is some 20 µs, for each request of each turn.
  const minute = Math.floor(instant.getTime() / 60_000);
  const key = `${mode} ${timeZone} ${base}`;
  const kept = lines.get(key);
  if (kept?.minute === minute) return kept.line;
  const line = lineAt(mode, timeZone, instant, base);
  if (lines.size >= 1000) lines.clear();
  lines.set(key, { minute, line });
  return line;
}

/** Each clock line (by mode, time zone and language) of the last minute it was asked for. */
const lines = new Map<string, { minute: number; line: string }>();

function lineAt(mode: 'date' | 'time', timeZone: string, instant: Date, base: string): string {
  const line = LINES[base] ?? LINES.en!;
  const locale = line.locale ?? base;
  const { day, time, offset } = wallClock(instant, timeZone);
  const said = dayOf(instant, timeZone, locale);
  const at = mode === 'date' ? day : `${day}T${time}${offset}`;
  const words: Record<string, string> = { said, at, time, zone: timeZone };
  return line[mode].replace(/\{(\w+)\}/g, (_, name: string) => words[name]!);
}
