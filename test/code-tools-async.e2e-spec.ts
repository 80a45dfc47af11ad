import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { echoed } from './support/recording-server.js';
import { callOnce, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/** Async tool code as voice-agent frameworks have it written: `async def`, aiohttp, httpx.AsyncClient. */
const ASYNC = readFileSync('test/fixtures/code-tools/async-tools.py', 'utf8');

/**
 * Requests held until `want` of them are there at once (then each is answered "together"), or for
 * `ms` (1.5 s unless given: "alone"): whether they went out side by side, not how long they took. `peak` is the most
 * held at once.
 */
const holding = { held: [] as (() => void)[], peak: 0 };
function hold(want: number, ms: number, res: ServerResponse): void {
  const timer = setTimeout(() => {
    holding.held = holding.held.filter((release) => release !== together);
    res.end('alone');
  }, ms);
  const together = () => (clearTimeout(timer), res.end('together'));
  holding.held.push(together);
  holding.peak = Math.max(holding.peak, holding.held.length);
  if (holding.held.length >= want) for (const release of holding.held.splice(0)) release();
}

describe('async code tools', () => {
  const rig = useEngineRig(
    (toolsUrl) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        { type: 'python', code: ASYNC.replace('BASE', toolsUrl), timeout_secs: 3 },
        { type: 'python', code: ASYNC.replace('BASE', toolsUrl), name: 'sync_api' },
        { type: 'python', code: ASYNC.replaceAll('BASE', toolsUrl), name: 'pooled' },
        {
          name: 'held_tool',
          description: 'Held until three calls are there.',
          url: `${toolsUrl}/held?want=3&i={i}`,
          method: 'GET',
          parameters: { type: 'object', properties: { i: { type: 'integer' } } },
        },
      ]),
      CODE_TOOLS_WORKERS: '1',
      CODE_TOOLS_ALLOW_PRIVATE_NETWORK: 'true',
      TOOL_SECRET_API_TOKEN: 'tok-5150',
    }),
    (req, res) => {
      if (req.path === '/echo')
        return void res
          .writeHead(200, { 'Content-Type': 'application/json', 'Set-Cookie': 'sid=s1' })
          .end(echoed(req));
      if (req.path === '/page')
        return void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>hi</p>');
      if (req.path === '/missing') return void res.writeHead(404).end('no');
      if (req.path === '/held')
        return hold(Number(req.query.want), Number(req.query.ms ?? 1500), res);
      if (req.path === '/lines') return void res.end('one\ntwo\n');
      if (req.path === '/slow') return void setTimeout(() => res.end('late'), 1500).unref();
      res.end('ok');
    },
  );

  it.each([
    [
      'aiohttp',
      [
        200,
        true,
        'application/json',
        '/echo?q=a+b',
        'k-1',
        '{"n": 1}',
        'application/json',
        `Basic ${Buffer.from('u:p').toString('base64')}`,
        // The cookie the first answer set, sent again by the session.
        'sid=s1',
      ],
    ],
    [
      'aiohttp_errors',
      [
        'Attempt to decode JSON with unexpected mimetype: text/html',
        '<p>hi</p>',
        404,
        "404, message='Not Found', url='URL/missing'",
        true,
        '127.0.0.1',
        1,
        true,
        ['one\n', 'two\n'],
        'no',
      ],
    ],
    [
      'form',
      ['a=1&b=x+y', 'application/x-www-form-urlencoded', 'multipart/form-data', true, true, true],
    ],
    ['httpx', ['/echo?n=1', 'a=1', ['one', 'two'], true]],
    ['nested', [['ran', 'ran'], true]],
    // Timers run side by side; what a thread would run, runs in place.
    ['timers', [[1, 2, 3, 'timed out', 42, 'own loop'], true]],
  ])(
    'runs an async def tool to its end: %s',
    async (which, expected) => {
      const ws = await WsClient.connect(rig.engine.wsUrl);
      expect(JSON.parse((await callOnce(rig, ws, 'async_api', { case: which })).read)).toEqual(
        expected,
      );
      ws.close();
    },
    30_000,
  );

  // Gathered (aiohttp, httpx), and ces_requests' handed to a thread, as async code wraps a sync library.
  it.each(['together', 'to_thread'])(
    "sends requests side by side, the calling tool's secrets in each: %s",
    async (which) => {
      const ws = await WsClient.connect(rig.engine.wsUrl);
      const before = rig.tools.requests.length;
      expect(JSON.parse((await callOnce(rig, ws, 'async_api', { case: which })).read)).toEqual([
        'together',
        'together',
        'together',
      ]);
      const held = rig.tools.requests.slice(before).filter((r) => r.path === '/held');
      expect(held.map((r) => r.headers.authorization)).toContain('Bearer tok-5150');
      ws.close();
    },
    30_000,
  );

  it('sends tools.<name> calls handed to a thread side by side, and runs a code tool inline', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    expect(JSON.parse((await callOnce(rig, ws, 'async_api', { case: 'tools' })).read)).toEqual([
      'together',
      'together',
      'together',
      ['ran', 'ran'],
    ]);
    ws.close();
  }, 30_000);

  it('has at most six requests of a call out at once; the others go as those are answered', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    holding.peak = 0;
    expect(
      JSON.parse((await callOnce(rig, ws, 'async_api', { case: 'at_most_six' })).read),
    ).toEqual(Array(8).fill('alone'));
    expect(holding.peak).toBe(6);
    ws.close();
  }, 30_000);

  it("fills in a secret's reference in an aiohttp request, and masks it in what comes back", async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    expect(JSON.parse((await callOnce(rig, ws, 'async_api', { case: 'secret' })).read)).toEqual([
      'Bearer [secret]',
    ]);
    expect(rig.tools.requests.at(-1)!.headers.authorization).toBe('Bearer tok-5150');
    ws.close();
  }, 30_000);

  it('runs asyncio.run() and an old-style loop from plain code', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    expect(JSON.parse((await callOnce(rig, ws, 'sync_api')).read)).toEqual(['ran', 'ran']);
    ws.close();
  }, 30_000);

  it("runs a thread pool's work in place, its calls into the engine side by side, and says a thread of the code's own cannot start", async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    expect(JSON.parse((await callOnce(rig, ws, 'pooled')).read)).toEqual([
      ['/echo?n=1', '/echo?n=2'],
      ['/echo?n=3', '/echo?n=4', '404', "can't start new thread"],
      Array(5).fill('together'),
    ]);
    ws.close();
  }, 30_000);

  it.each([
    ['stuck', 'awaits something that nothing will ever finish'],
    ['no_network', 'code tools have no network of their own'],
  ])(
    'says what went wrong when async code cannot go on: %s',
    async (which, said) => {
      const ws = await WsClient.connect(rig.engine.wsUrl);
      expect((await callOnce(rig, ws, 'async_api', { case: which })).read).toContain(said);
      ws.close();
    },
    30_000,
  );

  it('stops a sleeping coroutine at its timeout, and the next call runs', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    const started = Date.now();
    const { read } = await callOnce(rig, ws, 'async_api', { case: 'forever' });
    expect(read).toContain('ran longer than 3s');
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(JSON.parse((await callOnce(rig, ws, 'sync_api')).read)).toEqual(['ran', 'ran']);
    ws.close();
  }, 40_000);
});
