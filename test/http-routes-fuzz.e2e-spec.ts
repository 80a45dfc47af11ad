import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { chaosOptions, FAULT_WORDS } from './support/chaos-checks.js';
import { useEngineRig } from './support/turn-harness.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';

const KEY = 'adm-fuzz-1';
/** The documented operations (openapi.json, which test/deploy.spec.ts keeps up to date). */
const OPERATIONS = Object.entries(
  (JSON.parse(readFileSync('openapi.json', 'utf8')) as { paths: Record<string, object> }).paths,
).flatMap(([route, methods]) => Object.keys(methods).map((m) => [route, m.toUpperCase()] as const));

/** What a client may put where a route takes a name or an id. */
const segment = fc.oneof(
  fc.constantFrom(
    'get_weather',
    'nope',
    '..',
    '%2e%2e',
    '%00',
    '%ZZ',
    'a%2Fb',
    'x'.repeat(3000),
    '東京',
  ),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
);
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;
/** A documented operation, mostly; another method, or a path no route has. */
const target = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...OPERATIONS) },
  fc.tuple(fc.constantFrom(...OPERATIONS.map(([route]) => route)), fc.constantFrom(...METHODS)),
  fc.tuple(
    fc.constantFrom('/api', '/api/tools/', '/api/sessions//notes', '/docs', '/nowhere'),
    fc.constantFrom(...METHODS),
  ),
);

const body = fc.oneof(
  fc.constantFrom(
    undefined,
    '',
    '{',
    'null',
    '[]',
    '{}',
    '"text"',
    '{"name":null}',
    'x'.repeat(2_000_000),
  ),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 40 }),
);
const request = fc.record({
  target,
  segment,
  query: fc.constantFrom('', '?', '?q=1', '?limit=-1', '?offset=abc', '?x=%E0%A4%A'),
  auth: fc.constantFrom(`Bearer ${KEY}`, `Bearer ${KEY}`, 'Bearer wrong', 'Basic abc', undefined),
  type: fc.constantFrom(
    'application/json',
    'application/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=latin1',
    undefined,
  ),
  body,
});

/**
 * Random requests to the HTTP API (every documented route, and others; any method, names and ids
 * of any text, bodies of any kind or size, keys right or wrong): each is answered below 500, a
 * refusal as JSON saying why in words, and the engine answers on.
 */
describe('random requests to the HTTP API', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    ADMIN_API_KEY: KEY,
    LLM_TOOLS_FILE: writeToolsFile([weatherTool(base)]),
  }));

  it('are each answered below 500, a refusal in words', async () => {
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        request,
        async ({ target: [route, method], segment, query, auth, type, body }) => {
          const path = route.replace(/\{[^}]+\}/g, segment);
          const headers: Record<string, string> = {};
          if (auth) headers.Authorization = auth;
          if (type) headers['Content-Type'] = type;
          const res = await fetch(`${rig.engine.httpUrl}${path}${query}`, {
            method,
            headers,
            ...(body !== undefined && method !== 'GET' && { body }),
          });
          const text = await res.text();
          statuses.add(res.status);
          expect(res.status).toBeLessThan(500);
          expect(text).not.toMatch(FAULT_WORDS);
          if (res.status >= 400 && method !== 'OPTIONS') {
            // The API's refusal (ToolsErrorDto), whoever refused: a controller or the framework.
            expect(JSON.parse(text)).toEqual({
              ok: false,
              statusCode: res.status,
              message: expect.any(String),
            });
          }
        },
      ),
      chaosOptions(Number(process.env.CHAOS_RUNS ?? 100)),
    );
    expect((await fetch(`${rig.engine.httpUrl}/health`)).status).toBe(200);
    expect([...statuses].some((s) => s < 300)).toBe(true);
    expect([...statuses].some((s) => s >= 400)).toBe(true);
  }, 240_000);

  it('answers the next request after refusing a body too large, whichever connection it takes', async () => {
    for (let i = 0; i < 5; i++) {
      const large = await fetch(`${rig.engine.httpUrl}/twilio/voice`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'x'.repeat(2_000_000),
      });
      expect(large.status).toBe(413);
      await large.text();
      const next = await fetch(`${rig.engine.httpUrl}/api/tools`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(next.status).toBe(400);
    }
  });
});
