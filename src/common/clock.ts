/**
 * The current moment as a session's user has it: in their time zone (an IANA name,
 * `Europe/Rome`), for the model's system message (LLM_CLOCK) and for dates said aloud. Pure: no
 * Nest import.
 */

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

const formats = new Map<string, { day: Intl.DateTimeFormat; parts: Intl.DateTimeFormat }>();

function formatsOf(timeZone: string) {
  let kept = formats.get(timeZone);
  if (!kept) {
    kept = {
      day: new Intl.DateTimeFormat('en-GB', {
        timeZone,
        weekday: 'long',
        day: 'numeric',
        month: 'long',
        year: 'numeric',
      }),
      parts: new Intl.DateTimeFormat('en-US', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
        timeZoneName: 'longOffset',
      }),
    };
    formats.set(timeZone, kept);
  }
  return kept;
}

/** The wall clock in `timeZone` at `instant`: `2026-12-04`, `22:31`, `+01:00`. */
export function wallClock(
  instant: Date,
  timeZone: string,
): { day: string; time: string; offset: string } {
  const parts = Object.fromEntries(
    formatsOf(timeZone)
      .parts.formatToParts(instant)
      .map((p) => [p.type, p.value]),
  );
  const offset = /GMT([+-]\d{2}:\d{2})/.exec(parts.timeZoneName ?? '')?.[1] ?? '+00:00';
  return {
    day: `${parts.year}-${parts.month}-${parts.day}`,
    time: `${parts.hour}:${parts.minute}`,
    offset,
  };
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
 * zone ("Today is Friday, 4 December 2026 (2026-12-04), time zone Europe/Rome."), or '' (`off`).
 */
export function clockLine(mode: ClockMode, timeZone: string, instant = new Date()): string {
  if (mode === 'off') return '';
  const { day, time, offset } = wallClock(instant, timeZone);
  const said = formatsOf(timeZone).day.format(instant);
  return mode === 'date'
    ? `Today is ${said} (${day}), time zone ${timeZone}.`
    : `It is ${time} on ${said} (${day}T${time}${offset}), time zone ${timeZone}.`;
}
