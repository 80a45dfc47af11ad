import { clockLine, offsetMinutes, timeZoneNamed, wallClock } from './clock.js';

describe('clockLine', () => {
  const evening = new Date('2026-12-04T21:31:00Z');

  it('tells the minute and the day as they turn, asked again and again', () => {
    const at = (iso: string, mode: 'date' | 'time' = 'time') =>
      clockLine(mode, 'Europe/Rome', new Date(iso));
    expect(at('2026-12-04T22:58:59.999Z')).toBe(at('2026-12-04T22:58:00Z'));
    expect(at('2026-12-04T22:58:59.999Z')).toContain('It is 23:58 on Friday');
    expect(at('2026-12-04T22:59:00Z')).toContain('It is 23:59 on Friday');
    expect(at('2026-12-04T22:59:59.999Z', 'date')).toContain('Friday, 4 December');
    expect(at('2026-12-04T23:00:00Z', 'date')).toContain('Saturday, 5 December');
    // An earlier moment after a later one: its own line, not the one kept.
    expect(at('2026-12-04T22:58:30Z')).toContain('23:58');
    // Kathmandu is 5:45 ahead: its day starts on a minute too.
    const kathmandu = (iso: string) => clockLine('date', 'Asia/Kathmandu', new Date(iso));
    expect(kathmandu('2026-12-04T18:14:59Z')).toContain('Friday');
    expect(kathmandu('2026-12-04T18:15:00Z')).toContain('Saturday');
  });

  it("tells the day in the session's language, for the languages of the default phrases", () => {
    const said = (language: string) => clockLine('date', 'Europe/Rome', evening, language);
    expect(said('en')).toBe(
      'Today is Friday, 4 December 2026 (2026-12-04), time zone Europe/Rome.',
    );
    expect(said('it')).toBe(
      'Oggi è venerdì 4 dicembre 2026 (2026-12-04), fuso orario Europe/Rome.',
    );
    expect(said('es')).toBe(
      'Hoy es viernes, 4 de diciembre de 2026 (2026-12-04), zona horaria Europe/Rome.',
    );
    expect(said('fr')).toBe(
      'Nous sommes le vendredi 4 décembre 2026 (2026-12-04), fuseau horaire Europe/Rome.',
    );
    expect(said('de')).toBe(
      'Heute ist Freitag, 4. Dezember 2026 (2026-12-04), Zeitzone Europe/Rome.',
    );
    expect(said('pt-br')).toBe(
      'Hoje é sexta-feira, 4 de dezembro de 2026 (2026-12-04), fuso horário Europe/Rome.',
    );
    // A language without a line here: English, written as in English.
    expect(said('nl')).toBe(said('en'));
    expect(said('en-us')).toBe(said('en'));
  });

  it('tells the time of day with its offset, or nothing', () => {
    expect(clockLine('time', 'Europe/Rome', evening, 'de')).toBe(
      'Es ist 22:31 Uhr am Freitag, 4. Dezember 2026 (2026-12-04T22:31+01:00), Zeitzone Europe/Rome.',
    );
    expect(clockLine('time', 'Asia/Kolkata', evening)).toBe(
      'It is 03:01 on Saturday, 5 December 2026 (2026-12-05T03:01+05:30), time zone Asia/Kolkata.',
    );
    expect(clockLine('off', 'Europe/Rome', evening, 'it')).toBe('');
  });
});

describe('the wall clock', () => {
  it('reads a zone at an instant, summer time included', () => {
    expect(wallClock(new Date('2026-07-01T12:00:00Z'), 'Europe/Rome')).toEqual({
      day: '2026-07-01',
      time: '14:00',
      offset: '+02:00',
    });
    expect(offsetMinutes(new Date('2026-12-04T12:00:00Z'), 'America/St_Johns')).toBe(-210);
    expect(offsetMinutes(new Date('2026-12-04T12:00:00Z'), 'UTC')).toBe(0);
  });

  it('spells a zone canonically, and knows none that is not', () => {
    expect(timeZoneNamed('europe/rome')).toBe('Europe/Rome');
    expect(timeZoneNamed('Mars/Olympus')).toBeUndefined();
  });
});
