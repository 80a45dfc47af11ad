import fc from 'fast-check';
import WebSocket from 'ws';
import { chaosOptions } from './support/chaos-checks.js';
import { sseText } from './support/fake-llm.js';
import { useEngineRig } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';

const KEY = 'ws-key-1';
const ORIGIN = 'https://app.example.com';

/** An upgrade as clients of every kind send it: keys, origins, protocols, queries right or wrong. */
const upgrade = fc.record({
  path: fc.constantFrom('/ws', '/ws/', '/ws?', '/ws?x=1&x=2', '/WS', '/wsx', '/ws/../ws', '/'),
  resume: fc.option(
    fc.oneof(fc.constantFrom('', 'nope', '%ZZ', 'a'.repeat(5000)), fc.string({ maxLength: 10 })),
    { nil: undefined },
  ),
  token: fc.option(fc.constantFrom(KEY, 'wrong', '', `${KEY} `), { nil: undefined }),
  auth: fc.option(fc.constantFrom(`Bearer ${KEY}`, `bearer ${KEY}`, 'Bearer', `Basic ${KEY}`), {
    nil: undefined,
  }),
  origin: fc.option(
    fc.constantFrom(ORIGIN, 'https://evil.example', 'null', 'http://[::1', 'file://', ORIGIN + '/'),
    { nil: undefined },
  ),
  protocols: fc.option(fc.constantFrom('chat', 'a,b', 'x'.repeat(300)), { nil: undefined }),
  extensions: fc.option(
    fc.constantFrom(
      'permessage-deflate',
      'permessage-deflate; client_max_window_bits',
      'permessage-deflate; server_max_window_bits=99',
      'permessage-deflate; x=y',
      'foo',
    ),
    { nil: undefined },
  ),
});

/** An upgrade with nothing but its path and origin (its key still to be given). */
const SOUND: typeof upgrade extends fc.Arbitrary<infer U> ? U : never = {
  path: '/ws',
  resume: undefined,
  token: undefined,
  auth: undefined,
  origin: ORIGIN,
  protocols: undefined,
  extensions: undefined,
};

type Outcome = { opened: WsClient } | { status: number } | { error: string };

function attempt(
  url: string,
  headers: Record<string, string>,
  protocols?: string,
): Promise<Outcome> {
  return new Promise((resolve) => {
    let socket: WebSocket;
    try {
      socket = new WebSocket(url, protocols ? protocols.split(',') : undefined, {
        headers,
        perMessageDeflate: false,
      });
    } catch (error) {
      // The client refuses to send it (a protocol it cannot name): no upgrade at all.
      return resolve({ error: `client: ${(error as Error).message}` });
    }
    // Listening from the start: the session event may come in the upgrade answer's own packet.
    const client = new (WsClient as unknown as new (socket: WebSocket) => WsClient)(socket);
    socket.once('open', () => resolve({ opened: client }));
    socket.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      res.resume();
      socket.terminate();
    });
    socket.once('error', (error) => resolve({ error: error.message }));
  });
}

/**
 * Upgrades to `/ws` of every kind, with WS_API_KEY and WS_ALLOWED_ORIGINS set: each opens a
 * session that answers a turn, or is refused with an HTTP status below 500 (401, 403, 400, 404),
 * never a connection dropped without an answer; and the engine upgrades on.
 */
describe('random upgrades to /ws', () => {
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    WS_API_KEY: KEY,
    WS_ALLOWED_ORIGINS: ORIGIN,
  }));

  it('open a session or are refused with a status', async () => {
    rig.llm.fallback = () => sseText(['Fine.']);
    const outcomes = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        upgrade,
        async ({ path, resume, token, auth, origin, protocols, extensions }) => {
          const query = new URLSearchParams();
          if (resume !== undefined) query.set('resume', resume);
          if (token !== undefined) query.set('token', token);
          const glue = path.includes('?') ? '&' : '?';
          const url = `${rig.engine.wsUrl.replace(/\/ws$/, '')}${path}${query.size ? glue + query.toString() : ''}`;
          const headers: Record<string, string> = {};
          if (auth) headers.Authorization = auth;
          if (origin) headers.Origin = origin;
          if (extensions) headers['Sec-WebSocket-Extensions'] = extensions;
          const outcome = await attempt(url, headers, protocols);
          if ('error' in outcome) {
            // Only the client's own refusal to send such an upgrade: the engine always answers.
            expect(outcome.error).toMatch(/^client: /);
            return;
          }
          if ('status' in outcome) {
            outcomes.add(`refused ${outcome.status}`);
            expect(outcome.status).toBeGreaterThanOrEqual(400);
            expect(outcome.status).toBeLessThan(500);
            return;
          }
          outcomes.add('opened');
          const ws = outcome.opened;
          try {
            await ws.waitFor((m) => m.type === 'session');
            expect((await ws.turn('hi')).at(-1)).toMatchObject({ type: 'assistant_end' });
          } finally {
            ws.close();
            await ws.closed;
          }
        },
      ),
      {
        ...chaosOptions(Number(process.env.CHAOS_RUNS ?? 60)),
        // Each outcome at least once, however few runs the time limit lets through.
        examples: [[{ ...SOUND, token: KEY }], [{ ...SOUND, token: 'wrong' }]],
      },
    );
    expect([...outcomes].some((o) => o === 'opened')).toBe(true);
    expect([...outcomes].some((o) => o.startsWith('refused'))).toBe(true);
  }, 240_000);
});
