import { originAllowed, parseOrigins } from './origins.js';

describe('origin lists', () => {
  it('reads origins, lower-cased, a trailing slash dropped, and refuses one with a path', () => {
    expect(
      parseOrigins('https://App.Example.com/, http://localhost:3000 https://*.example.org'),
    ).toEqual(['https://app.example.com', 'http://localhost:3000', 'https://*.example.org']);
    expect(() => parseOrigins('https://app.example.com/voice')).toThrow(
      '"https://app.example.com/voice" is no origin: expected scheme://host[:port] (no path)',
    );
    expect(() => parseOrigins('app.example.com')).toThrow('"app.example.com" is no origin');
  });

  it('matches an origin exactly, any with *, and subdomains of a *. origin with its scheme and port', () => {
    const allowed = parseOrigins('https://app.example.com, https://*.example.org:8443');
    const cases: [string, boolean][] = [
      ['https://app.example.com', true],
      ['HTTPS://APP.EXAMPLE.COM', true],
      ['http://app.example.com', false],
      ['https://app.example.com:444', false],
      ['https://voice.example.org:8443', true],
      ['https://a.b.example.org:8443', true],
      ['https://example.org:8443', false],
      ['https://voice.example.org', false],
      ['http://voice.example.org:8443', false],
      ['https://evilexample.org:8443', false],
      ['null', false],
    ];
    expect(cases.map(([origin]) => [origin, originAllowed(allowed, origin)])).toEqual(cases);
    expect(originAllowed(['*'], 'https://anything.example')).toBe(true);
    expect(originAllowed([], 'https://app.example.com')).toBe(false);
  });
});
