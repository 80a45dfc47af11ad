import { argumentProblem } from './argument-check.js';

const booking = {
  type: 'object',
  properties: {
    day: { type: 'string', format: 'date' },
    at: { type: ['string', 'null'], format: 'date-time' },
    hour: { type: 'string', format: 'time' },
    email: { type: 'string', format: 'email' },
    ref: { type: 'string', format: 'uuid' },
    site: { type: 'string', format: 'uri' },
    count: { type: 'integer', format: 'int64' },
  },
};
const problem = (args: Record<string, unknown>) => argumentProblem(booking, args);

describe('formats of arguments', () => {
  it('take dates, times and date-times as ISO 8601 and Python write them', () => {
    for (const args of [
      { day: '2026-12-05' },
      { day: '2028-02-29' },
      { at: '2026-12-05T20:30' },
      { at: '2026-12-05 20:30:15' },
      { at: '2026-12-05T20:30:00.250+01:00' },
      { at: '2026-12-05T20:30Z' },
      { at: null },
      { hour: '08:05' },
      { hour: '23:59:59+0100' },
      { email: 'ada@example.com' },
      { ref: '0b5e2f4c-3d1a-4c8e-9f00-1a2b3c4d5e6f' },
    ])
      expect([args, problem(args)]).toEqual([args, undefined]);
  });

  it('refuse a day written otherwise, or none of the calendar, telling the form', () => {
    const date = 'must match format "date" (a day of the calendar, YYYY-MM-DD)';
    expect(problem({ day: 'tomorrow' })).toBe(`invalid arguments: arguments/day ${date}`);
    for (const day of ['12/06/2026', '2026-12-5', '2026-02-29', '2026-13-01', '2026-04-31'])
      expect(problem({ day })).toBe(`invalid arguments: arguments/day ${date}`);
    expect(problem({ at: '2026-12-05' })).toMatch(
      /^invalid arguments: arguments\/at must match format "date-time" \(YYYY-MM-DDTHH:MM/,
    );
    expect(problem({ at: 'Friday at 8pm' })).toMatch('must match format "date-time"');
    expect(problem({ hour: '8pm' })).toBe(
      'invalid arguments: arguments/hour must match format "time" (HH:MM, or HH:MM:SS)',
    );
    expect(problem({ hour: '24:00' })).toMatch('must match format "time"');
    expect(problem({ email: 'ada at example dot com' })).toBe(
      'invalid arguments: arguments/email must match format "email"',
    );
    expect(problem({ ref: 'order 12' })).toMatch('must match format "uuid" (8-4-4-4-12');
  });

  it('leave the formats they do not check alone', () => {
    expect(problem({ site: 'example dot com', count: 5 })).toBeUndefined();
  });
});
