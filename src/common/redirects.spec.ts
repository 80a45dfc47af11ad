import { redirectOf } from './redirects.js';

const from = new URL('https://api.example.com/v1/orders');

describe('a redirect answer', () => {
  it('is only a 301, 302, 303, 307 or 308 with a Location', () => {
    for (const status of [200, 204, 300, 304, 305, 400, 500])
      expect(redirectOf(status, '/x', from, 'GET')).toBeUndefined();
    expect(redirectOf(307, undefined, from, 'GET')).toBeUndefined();
    expect(redirectOf(307, '', from, 'GET')).toBeUndefined();
    for (const status of [301, 302, 303, 307, 308])
      expect(redirectOf(status, '/x', from, 'GET')?.url.href).toBe('https://api.example.com/x');
  });

  it('says so when its Location is no URL', () => {
    expect(() => redirectOf(302, 'http://[::1 /next', from, 'GET')).toThrow(
      'the server redirected to an invalid URL (http://[::1 /next)',
    );
  });

  it('keeps the method and body with 307 and 308, and with 301 or 302 after anything but a POST', () => {
    const keeps = (status: number, method: string) =>
      redirectOf(status, 'v2', from, method)!.keepsBody;
    expect(keeps(307, 'POST')).toBe(true);
    expect(keeps(308, 'PUT')).toBe(true);
    expect(keeps(301, 'PUT')).toBe(true);
    expect(keeps(302, 'DELETE')).toBe(true);
    expect(keeps(301, 'POST')).toBe(false);
    expect(keeps(302, 'POST')).toBe(false);
    expect(keeps(303, 'PUT')).toBe(false);
  });

  it('goes away when it leaves the host or goes from HTTPS to plain HTTP', () => {
    const away = (location: string) => redirectOf(302, location, from, 'GET')!.away;
    expect(away('/v2/orders')).toBe(false);
    expect(away('https://api.example.com:8443/v2')).toBe(false);
    expect(away('https://other.example.com/v1')).toBe(true);
    expect(away('https://example.com/v1')).toBe(true);
    expect(away('http://api.example.com/v1')).toBe(true);
    expect(
      redirectOf(302, 'https://api.example.com/', new URL('http://api.example.com/'), 'GET')!.away,
    ).toBe(false);
  });
});
