import { dateReader } from './spoken-date.js';

describe('dateReader', () => {
  it('writes a date said aloud as a date field wants it, in the session’s language or English', async () => {
    const english = await dateReader('en');
    expect(english('March 3rd, 1990', 'date')).toBe('1990-03-03');
    expect(english('no idea', 'date')).toBeUndefined();
    const italian = await dateReader('it-IT');
    expect(italian('il 3 marzo 1990', 'date')).toBe('1990-03-03');
    expect(italian('March 3rd, 1990', 'date')).toBe('1990-03-03');
    expect(english('March 3rd 1990 at 5 pm', 'date-time')).toMatch(
      /^1990-03-0[34]T\d\d:00:00\.000Z$/,
    );
  });
});
