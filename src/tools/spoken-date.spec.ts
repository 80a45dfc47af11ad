import { dateReader } from './spoken-date.js';

describe('dateReader', () => {
  it('writes a date said aloud as a date field wants it, in the session’s language or English', async () => {
    const english = await dateReader('en');
    expect(english('March 3rd, 1990', 'date')).toBe('1990-03-03');
    expect(english('no idea', 'date')).toBeUndefined();
    const italian = await dateReader('it-IT');
    expect(italian('il 3 marzo 1990', 'date')).toBe('1990-03-03');
    expect(italian('March 3rd, 1990', 'date')).toBe('1990-03-03');
    expect(english('March 3rd 1990 at 5 pm', 'date-time')).toBe('1990-03-03T17:00:00.000Z');
  });

  it("reads a date as the user's clock has it, in their time zone", async () => {
    // 23:31 in London is 00:31 the next day in Rome, 15:31 the same day in Los Angeles.
    const now = () => new Date('2026-12-04T23:31:00Z');
    const rome = await dateReader('it', 'Europe/Rome', now);
    expect(rome('oggi', 'date')).toBe('2026-12-05');
    expect(rome('domani alle 17', 'date-time')).toBe('2026-12-06T16:00:00.000Z');
    const angeles = await dateReader('en', 'America/Los_Angeles', now);
    expect(angeles('today', 'date')).toBe('2026-12-04');
    expect(angeles('tomorrow at 5 pm', 'date-time')).toBe('2026-12-06T01:00:00.000Z');
    expect(angeles('March 3rd, 1990', 'date')).toBe('1990-03-03');
  });
});
