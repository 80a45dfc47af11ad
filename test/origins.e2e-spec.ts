import WebSocket from 'ws';
import { Engine } from './support/engine.js';

/** How an upgrade with `headers` ends: `open`, or the HTTP status it was refused with. */
function upgrade(url: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    const { Origin: origin, ...rest } = headers;
    const ws = new WebSocket(url, { headers: rest, ...(origin && { origin }) });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => resolve(String(res.statusCode)));
    ws.on('error', () => undefined);
  });
}

/**
 * Browsers: WS_ALLOWED_ORIGINS keeps pages of other sites off /ws (a client that is no browser
 * sends no Origin and is let in), and CORS_ORIGINS lets an admin UI served elsewhere call the
 * HTTP API, which without it no page of another origin can read.
 */
describe('WS_ALLOWED_ORIGINS and CORS_ORIGINS', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({
      LLM_MODEL: 'm',
      WS_API_KEY: 'k-1',
      WS_ALLOWED_ORIGINS: 'https://app.example.com, https://*.example.org',
      CORS_ORIGINS: 'https://admin.example.com',
    });
  });
  afterAll(() => engine.stop());
  const key = { Authorization: 'Bearer k-1' };

  it('lets in pages of the allowed origins and clients that are no browser, and refuses others with 403', async () => {
    const seen = await Promise.all(
      [
        { ...key, Origin: 'https://app.example.com' },
        { ...key, Origin: 'https://voice.example.org' },
        key,
        { ...key, Origin: 'https://evil.example' },
        { ...key, Origin: 'http://app.example.com' },
        { Origin: 'https://app.example.com' },
      ].map((headers) => upgrade(engine.wsUrl, headers)),
    );
    expect(seen).toEqual(['open', 'open', 'open', '403', '403', '401']);
  });

  it('answers the admin UI origin with CORS headers, preflight included, and no other origin', async () => {
    const preflight = await fetch(`${engine.httpUrl}/api/tools`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://admin.example.com',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://admin.example.com');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe(
      'Authorization,Content-Type,If-Match,If-None-Match,traceparent',
    );
    const read = async (origin: string) =>
      (await fetch(`${engine.httpUrl}/api/tools`, { headers: { Origin: origin } })).headers.get(
        'access-control-allow-origin',
      );
    expect(await read('https://admin.example.com')).toBe('https://admin.example.com');
    // The admin UI reads the tool set's version, to send it back as If-Match.
    const listed = await fetch(`${engine.httpUrl}/api/tools`, {
      headers: { Origin: 'https://admin.example.com' },
    });
    expect(listed.headers.get('access-control-expose-headers')).toBe('ETag');
    expect(await read('https://evil.example')).toBeNull();
  });
});

describe('without WS_ALLOWED_ORIGINS and CORS_ORIGINS', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({ LLM_MODEL: 'm' });
  });
  afterAll(() => engine.stop());

  it('takes upgrades from any origin and sends no CORS header', async () => {
    expect(await upgrade(engine.wsUrl, { Origin: 'https://anywhere.example' })).toBe('open');
    const res = await fetch(`${engine.httpUrl}/api/tools`, {
      headers: { Origin: 'https://anywhere.example' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
