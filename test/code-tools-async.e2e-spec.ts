import type { ServerResponse } from 'node:http';
import { echoed } from './support/recording-server.js';
import { callOnce, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/** Async tool code as voice-agent frameworks have it written: `async def`, aiohttp, httpx.AsyncClient. */
const ASYNC = `import asyncio
import time

import aiohttp
import httpx


async def async_api(case: str) -> list:
    """Calls the API from async code."""
    base = "BASE"
    if case == "aiohttp":
        out = []
        async with aiohttp.ClientSession(base_url=base + "/", headers={"X-Api-Key": "k-1"},
                                         timeout=aiohttp.ClientTimeout(total=5)) as s:
            async with s.get("/echo", params={"q": "a b"}) as r:
                body = await r.json()
                out += [r.status, r.ok, r.content_type, body["url"], body["key"]]
            r = await s.post("echo", json={"n": 1}, auth=aiohttp.BasicAuth("u", "p"))
            body = await r.json()
            out += [body["body"], body["type"], body["auth"], body["cookie"]]
        return out
    if case == "aiohttp_errors":
        out = []
        async with aiohttp.ClientSession() as s:
            r = await s.get(base + "/page")
            try:
                await r.json()
            except aiohttp.ContentTypeError as e:
                out.append(e.message)
            out.append(await r.text())
            try:
                async with s.get(base + "/missing") as r:
                    r.raise_for_status()
            except aiohttp.ClientResponseError as e:
                out += [e.status, str(e).replace(base, "URL")]
            try:
                await s.get(base + "/slow", timeout=aiohttp.ClientTimeout(total=0.5))
            except asyncio.TimeoutError as e:
                out += [isinstance(e, aiohttp.ClientError)]
            try:
                await s.get("http://127.0.0.1:1/")
            except aiohttp.ClientConnectorError as e:
                out += [e.host, e.port, isinstance(e, OSError)]
            r = await s.get(base + "/lines")
            out.append([line async for line in r.content])

        async def own_check(response):
            if response.status == 404:
                raise LookupError(await response.text())

        async with aiohttp.ClientSession(raise_for_status=own_check) as s:
            try:
                await s.get(base + "/missing")
            except LookupError as e:
                out.append(str(e))
        return out
    if case == "form":
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=4, ssl=False)) as s:
            plain = aiohttp.FormData({"a": "1"})
            plain.add_field("b", "x y")
            first = await (await s.post(base + "/echo", data=plain)).json()
            upload = aiohttp.FormData()
            upload.add_field("note", "hi")
            upload.add_field("file", b"RIFFaudio", filename="clip.wav", content_type="audio/wav")
            second = await (await s.post(base + "/echo", data=upload)).json()
            with open("/tmp/note.txt", "w") as f:
                f.write("a note")
            with open("/tmp/note.txt", "rb") as f:
                doc = aiohttp.FormData()
                doc.add_field("doc", f)
                third = await (await s.post(base + "/echo", data=doc)).json()
            return [first["body"], first["type"], second["type"].split(";")[0],
                    'name="note"\\r\\n\\r\\nhi' in second["body"],
                    'filename="clip.wav"\\r\\nContent-Type: audio/wav\\r\\n\\r\\nRIFFaudio' in second["body"],
                    'name="doc"; filename="note.txt"\\r\\n\\r\\na note' in third["body"]]
    if case == "secret":
        async with aiohttp.request("GET", base + "/echo", headers={"Authorization": "Bearer \${TOOL_SECRET_API_TOKEN}"}) as r:
            return [(await r.json())["auth"]]
    if case == "httpx":
        async def checked(response):
            response.raise_for_status()

        async with httpx.AsyncClient(base_url=base, timeout=5, event_hooks={"response": [checked]}) as client:
            one, two = await asyncio.gather(client.get("/echo", params={"n": 1}), client.post("/echo", data={"a": "1"}))
            async with client.stream("GET", "/lines") as r:
                lines = [line async for line in r.aiter_lines()]
            try:
                await client.get("/missing")
                raised = False
            except httpx.HTTPStatusError:
                raised = True  # by the response hook
            return [one.json()["url"], two.json()["body"], lines, raised]
    if case == "together":
        # Gathered requests go out at once: the server answers each once all three are there.
        async with httpx.AsyncClient(base_url=base) as client:
            async with aiohttp.ClientSession() as s:
                async def held(i):
                    async with s.get(base + "/held", params={"want": 3, "i": i}) as r:
                        return await r.text()

                answers = await asyncio.gather(
                    held(1), held(2),
                    client.get("/held", params={"want": 3, "i": 3},
                               headers={"Authorization": "Bearer \${TOOL_SECRET_API_TOKEN}"}))
        return [answers[0], answers[1], answers[2].text]
    if case == "to_thread":
        # requests handed to a thread, as async code wraps a sync library: out together too.
        import functools

        import requests

        held = base + "/held"
        loop = asyncio.get_running_loop()
        answers = await asyncio.gather(
            asyncio.to_thread(requests.get, held, params={"want": 3, "i": 1},
                              headers={"Authorization": "Bearer \${TOOL_SECRET_API_TOKEN}"}),
            loop.run_in_executor(None, functools.partial(requests.get, held, params={"want": 3, "i": 2})),
            asyncio.to_thread(requests.request, "GET", held, params={"want": 3, "i": 3}))
        return [r.text for r in answers]
    if case == "tools":
        # Other tools handed to a thread: an HTTP tool's calls out together, a code tool's run inline.
        answers = await asyncio.gather(
            asyncio.to_thread(tools.held_tool, {"i": 1}),
            asyncio.to_thread(tools.held_tool, i=2),
            asyncio.get_running_loop().run_in_executor(None, tools.held_tool, {"i": 3}),
            asyncio.to_thread(tools.sync_api))
        return answers
    if case == "at_most_six":
        async with aiohttp.ClientSession() as s:
            async def held(i):
                async with s.get(base + "/held", params={"want": 8, "i": i, "ms": 500}) as r:
                    return await r.text()

            return await asyncio.gather(*(held(i) for i in range(8)))
    if case == "timers":
        async def later(value, delay):
            await asyncio.sleep(delay)
            return value

        start = time.monotonic()
        together = await asyncio.gather(later(1, 0.3), later(2, 0.2), later(3, 0.1))
        took = time.monotonic() - start
        try:
            await asyncio.wait_for(asyncio.sleep(10), 0.1)
        except TimeoutError:
            together.append("timed out")
        together.append(await asyncio.to_thread(lambda x: x * 2, 21))
        # A thread's work running its own loop, as it may in a thread.
        together.append(await asyncio.to_thread(asyncio.run, later("own loop", 0.01)))
        return [together, 0.25 < took < 1]
    if case == "nested":
        # Other code tools called inline from async code: one running asyncio.run(), one async.
        return [tools.sync_api(), tools.async_api({"case": "timers"})[1]]
    if case == "stuck":
        await asyncio.Event().wait()
    if case == "no_network":
        await asyncio.open_connection("example.com", 80)
    if case == "forever":
        await asyncio.sleep(60)
    return ["not caught"]


def sync_api() -> list:
    """Runs async code from plain code, as scripts do."""
    async def main():
        await asyncio.sleep(0.01)
        return "ran"

    old_style = asyncio.get_event_loop().run_until_complete(main())
    return [asyncio.run(main()), old_style]


def pooled() -> list:
    """Hands requests to a thread pool, as sync code does to fetch several pages."""
    import threading
    from concurrent.futures import ThreadPoolExecutor, as_completed

    import requests

    def fetch(n):
        r = requests.get("BASE/echo", params={"n": n})
        r.raise_for_status()
        return r.json()["url"]

    with ThreadPoolExecutor(max_workers=3) as pool:
        # Requests given as they are go out at once: the server answers them once all are there.
        held = "BASE/held"
        futures = [pool.submit(requests.get, held, params={"want": 3, "i": i}) for i in (1, 2)]
        futures.append(pool.submit(tools.held_tool, {"i": 3}))
        together = [futures[0].result().text, futures[1].result().text, futures[2].result()]
        together += [r.text for r in pool.map(requests.get, [f"{held}?want=2&i={i}" for i in (4, 5)])]
        mapped = list(pool.map(fetch, [1, 2]))
        futures = {pool.submit(fetch, n): n for n in (3, 4)}
        futures[pool.submit(requests.get, "BASE/missing")] = 5
        done = sorted(str(f.result()) if futures[f] < 5 else str(f.result().status_code) for f in as_completed(futures))
    try:
        threading.Thread(target=fetch, args=(6,)).start()
    except RuntimeError as e:
        done.append(str(e).split(":")[0])
    return [mapped, done, together]
`;

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
