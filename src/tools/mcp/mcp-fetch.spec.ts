import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { boundedFetch, redirectSafe } from './mcp-fetch.js';

/** An event stream written in these pieces, as the MCP server's GET stream. */
describe('boundedFetch on an event stream', () => {
  let pieces: string[] = [];
  let server: Server;
  let url = '';
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const next = (i: number) => {
        if (i === pieces.length) return void res.end();
        res.write(pieces[i]);
        setTimeout(() => next(i + 1), 2);
      };
      next(0);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const read = async () => {
    const response = await boundedFetch(100)(url, { method: 'GET' });
    return response.text();
  };
  const event = (size: number) => `data: ${'x'.repeat(size - 8)}\n\n`; // `size` bytes in all

  it('passes events within the limit, however the stream is cut', async () => {
    const events = [event(100), event(60), event(100)].join('');
    pieces = [events];
    expect(await read()).toBe(events);
    // Cut inside events and inside a blank line ("\n" | "\n"): each event is counted alone.
    pieces = [events.slice(0, 99), events.slice(99, 150), events.slice(150)];
    expect(await read()).toBe(events);
    pieces = Array.from({ length: events.length }, (_, i) => events[i]!);
    expect(await read()).toBe(events);
    // Events that end with CRLF blank lines (or CR ones), whole or a character at a time.
    for (const eol of ['\r\n', '\r']) {
      const crlf = [event(95), event(60), event(95)].join('').replaceAll('\n', eol);
      pieces = [crlf];
      expect(await read()).toBe(crlf);
      pieces = Array.from({ length: crlf.length }, (_, i) => crlf[i]!);
      expect(await read()).toBe(crlf);
    }
  });

  it('fails the stream at an event larger than the limit, whole or cut', async () => {
    const events = event(50) + event(101);
    pieces = [events];
    await expect(read()).rejects.toThrow(/larger than LLM_TOOL_MAX_RESPONSE_BYTES \(100 bytes\)/);
    pieces = [events.slice(0, 60), events.slice(60, 120), events.slice(120)];
    await expect(read()).rejects.toThrow(/larger than LLM_TOOL_MAX_RESPONSE_BYTES/);
  });
});

/** Redirects the MCP requests follow themselves (see redirectSafe). */
describe('redirectSafe', () => {
  const seen: { method: string; url: string; body: string; type?: string }[] = [];
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, body, type: req.headers['content-type'] });
        if (req.url === '/loop') return void res.writeHead(302, { Location: '/loop' }).end('moved');
        if (req.url === '/see-other') return void res.writeHead(303, { Location: '/done' }).end();
        if (req.url === '/away') return void res.writeHead(307, { Location: `${other}/mcp` }).end();
        res.writeHead(200).end(`${req.method} ${body}`);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.2', r));
    other = `http://127.0.0.2:${(elsewhere.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await new Promise((r) => elsewhere.close(r));
  });
  beforeEach(() => (seen.length = 0));
  /** Another host: what it was sent. */
  let other = '';
  let received: Record<string, unknown> = {};
  const elsewhere = createServer((req, res) => {
    received = req.headers;
    req.resume();
    res.end('there');
  });

  it('sends no credential to another host, nor a header of the tool; others go on', async () => {
    const headers = { Authorization: 'Bearer t0k', Cookie: 'sid=1', 'X-Key': 'k', 'X-Trace': 'x' };
    const response = await redirectSafe(['x-key'])(`${base}/away`, {
      method: 'POST',
      body: '{}',
      headers,
    });
    expect(await response.text()).toBe('there');
    expect(received).toMatchObject({ 'x-trace': 'x' });
    for (const gone of ['authorization', 'cookie', 'x-key']) expect(received[gone]).toBeUndefined();
  });

  it('follows at most three redirects', async () => {
    await expect(redirectSafe([])(`${base}/loop`)).rejects.toThrow(
      'too many redirects (at most 3 are followed)',
    );
    expect(seen.map((s) => s.url)).toEqual(['/loop', '/loop', '/loop', '/loop']);
  });

  it('asks for a 303 redirect with a GET, without the body or its type', async () => {
    const init = {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'Content-Type': 'application/json' },
    };
    const response = await redirectSafe([])(`${base}/see-other`, init);
    expect(await response.text()).toBe('GET ');
    expect(seen.at(-1)).toEqual({ method: 'GET', url: '/done', body: '', type: undefined });
  });
});

/** The answers to a connection's POSTs (its requests), read within the limit. */
describe('boundedFetch on requests', () => {
  /** Answers every POST with `answer` (a JSON body, or an event stream); records its headers. */
  let answer: { type: string; body: string } = { type: 'application/json', body: '{}' };
  let headers: Record<string, unknown> = {};
  const fake = (_url: string | URL, init?: RequestInit) => {
    headers = Object.fromEntries(new Headers(init?.headers));
    return Promise.resolve(
      new Response(answer.body, { status: 200, headers: { 'content-type': answer.type } }),
    );
  };
  const call = (meta: Record<string, unknown> = {}, own: Record<string, string> = {}) =>
    boundedFetch(100, fake)('http://mcp.internal/mcp', {
      method: 'POST',
      headers: own,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 't', _meta: meta },
      }),
    });
  const TOO_LARGE = {
    jsonrpc: '2.0',
    id: 7,
    error: {
      code: -32099,
      message: "the MCP server's answer is larger than LLM_TOOL_MAX_RESPONSE_BYTES (100 bytes)",
    },
  };

  it('answers a request whose answer is over the limit with an error, in JSON or as an event', async () => {
    answer = { type: 'application/json', body: JSON.stringify({ big: 'x'.repeat(200) }) };
    expect(await (await call()).json()).toEqual(TOO_LARGE);
    answer = { type: 'text/event-stream', body: `event: message\ndata: ${'x'.repeat(200)}\n\n` };
    const events = await (await call()).text();
    expect(events).toContain(`data: ${JSON.stringify(TOO_LARGE)}\n\n`);
    // Within the limit, the answer is passed on as it came.
    answer = { type: 'application/json', body: '{"jsonrpc":"2.0","id":7,"result":{}}' };
    expect(await (await call()).text()).toBe(answer.body);
  });

  it("sends a call's traceparent as the HTTP header too, unless the tool's headers set one", async () => {
    const trace = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await call({ traceparent: trace });
    expect(headers.traceparent).toBe(trace);
    await call({ traceparent: trace }, { traceparent: 'the-tools-own' });
    expect(headers.traceparent).toBe('the-tools-own');
  });
});
