import { Engine } from './support/engine.js';
import { RecordingServer } from './support/recording-server.js';
import { restTools, writeToolsFile } from './support/tools-file.js';
import { ToolExecutor } from '../src/tools/tool-executor.js';
import { ToolRegistry } from '../src/tools/tool-registry.service.js';

describe('HTTP tools against a real server (seed §3–§6)', () => {
  const server = new RecordingServer();
  let engine: Engine;
  let base: string;

  beforeAll(async () => {
    base = await server.start();
    engine = await Engine.start({
      LLM_TOOLS_FILE: writeToolsFile(restTools(base)),
      LLM_TOOL_TIMEOUT_SECS: '0.5',
      LLM_TOOL_RESULT_MAX_CHARS: '50',
      LLM_TOOL_MAX_RESPONSE_BYTES: '4096',
    });
  });
  afterAll(async () => {
    await engine?.stop();
    await server.stop();
  });
  beforeEach(() => {
    server.requests.length = 0;
    server.respond((_req, res) => res.end('done'));
  });

  function call(name: string, args: Record<string, unknown>) {
    const executor = engine.app.get(ToolExecutor);
    const snapshot = engine.app.get(ToolRegistry).active();
    return executor.execute({
      id: 'c1',
      name,
      args,
      snapshot,
      signal: new AbortController().signal,
    });
  }

  it.each([
    ['list_items', { limit: 10 }, 'GET', '/api/items?limit=10', ''],
    ['get_item', { id: '5' }, 'GET', '/api/items/5', ''],
    ['add_item', { name: 'pen' }, 'POST', '/api/items', '{"name":"pen"}'],
    ['update_item', { id: '5', qty: 2 }, 'PATCH', '/api/items/5', '{"qty":2}'],
    ['replace_item', { id: '5', name: 'pen' }, 'PUT', '/api/items/5', '{"name":"pen"}'],
    ['delete_item', { id: '5' }, 'DELETE', '/api/items/5', ''],
    ['item_exists', { id: '5' }, 'HEAD', '/api/items/5', ''],
    ['purge_item', { id: '5' }, 'PURGE', '/api/items/5', '{}'],
    ['item_options', { id: '5', v: 1 }, 'OPTIONS', '/api/items/5?v=1', ''],
    ['trace_item', { id: '5' }, 'TRACE', '/api/items/5', ''],
  ])('%s reaches the server as the seed says', async (name, args, method, url, body) => {
    await call(name, args);
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req).toMatchObject({ method, url, body });
    if (body) expect(req!.headers['content-type']).toBe('application/json');
  });

  it('sends headers with placeholders filled, and the path value percent-encoded', async () => {
    await call('create_note', { token: 's3cret', text: 'hi' });
    expect(server.requests[0]!.headers).toMatchObject({
      authorization: 'Bearer s3cret',
      'x-tool': 'audio-agent-engine',
    });
    server.requests.length = 0;
    await call('get_weather', { city: 'New York/..?x' });
    expect(server.requests[0]!.url).toBe('/New%20York%2F..%3Fx?format=3');
  });

  it('never lets a placeholder act as a dot segment on the receiving server', async () => {
    const result = await call('get_item', { id: '..' });
    expect(result.text).toMatch(/^Error: tool request failed: /);
    expect(server.requests).toHaveLength(0);
  });

  it('returns the body, or the status line for an empty 2xx (HEAD)', async () => {
    server.respond((_req, res) => res.end('{"id":"5"}'));
    expect(await call('get_item', { id: '5' })).toEqual({ ok: true, text: '{"id":"5"}' });
    server.respond((_req, res) => res.writeHead(200).end());
    expect(await call('item_exists', { id: '5' })).toEqual({
      ok: true,
      text: 'HTTP 200 OK (empty body)',
    });
  });

  it('reads a body in its declared charset, and gives a note instead of binary content', async () => {
    server.respond((_req, res) =>
      res
        .writeHead(200, { 'Content-Type': 'text/plain; charset=iso-8859-1' })
        .end(Buffer.from('Café crème', 'latin1')),
    );
    expect(await call('get_item', { id: '1' })).toEqual({ ok: true, text: 'Café crème' });
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    server.respond((_req, res) => res.writeHead(200, { 'Content-Type': 'image/png' }).end(png));
    expect(await call('get_item', { id: '1' })).toEqual({
      ok: true,
      text: 'HTTP 200 OK (image/png, 16 bytes, not text)',
    });
    server.respond((_req, res) =>
      res.writeHead(500, { 'Content-Type': 'application/octet-stream' }).end(png),
    );
    expect((await call('get_item', { id: '1' })).text).toBe(
      'Error: HTTP 500 Internal Server Error — (application/octet-stream, 16 bytes, not text)',
    );
  });

  it('reports a connection dropped halfway through the body, not the part that came', async () => {
    server.respond((_req, res) => {
      res.writeHead(200).write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 5);
    });
    expect(await call('get_item', { id: '1' })).toEqual({
      ok: false,
      text: 'Error: tool request failed: the server closed the connection before the response was complete',
    });
  });

  it('turns a non-2xx into the seed text with reason phrase and truncated body', async () => {
    server.respond((_req, res) => res.writeHead(404).end('x'.repeat(100)));
    const result = await call('get_item', { id: '9' });
    expect(result.ok).toBe(false);
    expect(result.text).toBe(`Error: HTTP 404 Not Found — ${'x'.repeat(50)}… [truncated]`);
  });

  it.each([
    [299, { ok: true, text: 'fine' }],
    [300, { ok: false, text: 'Error: HTTP 300 Multiple Choices — fine' }],
  ])(
    'reads HTTP %i as success only within 2xx (a 300 is not followed: it has no Location)',
    async (status, outcome) => {
      server.respond((_req, res) => res.writeHead(status).end('fine'));
      expect(await call('get_item', { id: '1' })).toEqual(outcome);
    },
  );

  it('truncates a long result and reads no more than the byte limit of a big body', async () => {
    server.respond((_req, res) => res.end('y'.repeat(1_000_000)));
    expect((await call('get_item', { id: '1' })).text).toBe(`${'y'.repeat(50)}… [truncated]`);
  });

  it('times out a slow server with the seed text', async () => {
    server.respond(() => undefined);
    const result = await call('get_item', { id: '1' });
    expect(result).toEqual({ ok: false, text: 'Error: tool request failed: timed out after 0.5s' });
  });

  it("takes a tool's own timeout_secs over LLM_TOOL_TIMEOUT_SECS", async () => {
    const registry = engine.app.get(ToolRegistry);
    const snapshot = registry.active();
    await registry.replace([
      { name: 'quick', url: `${base}/quick`, method: 'GET', timeout_secs: 0.1 },
      { name: 'patient', url: `${base}/patient`, method: 'GET', timeout_secs: 2 },
    ]);
    // Answers after 1 s: past the quick tool's 0.1 s and the default 0.5 s, within 2 s.
    server.respond((_req, res) => void setTimeout(() => res.end('late but fine'), 1000));
    expect(await call('quick', {})).toEqual({
      ok: false,
      text: 'Error: tool request failed: timed out after 0.1s',
    });
    expect(await call('patient', {})).toEqual({ ok: true, text: 'late but fine' });
    await registry.replace(snapshot.definitions.map((t) => t.raw));
  });

  it('never reaches a cloud metadata address, named in the tool or by a redirect', async () => {
    const registry = engine.app.get(ToolRegistry);
    const snapshot = registry.active();
    await registry.replace([
      { name: 'metadata', url: 'http://169.254.169.254/latest/meta-data/', method: 'GET' },
      { name: 'redirecting', url: `${base}/r`, method: 'GET' },
    ]);
    server.respond((_req, res) =>
      res.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data/iam' }).end(),
    );
    const refused =
      'Error: tool request failed: refused: 169.254.169.254 is an address this request may not reach (where clouds serve instance metadata)';
    expect(await call('metadata', {})).toEqual({ ok: false, text: refused });
    expect(await call('redirecting', {})).toEqual({ ok: false, text: refused });
    expect(server.requests.map((r) => r.path)).toEqual(['/r']);
    // The metadata endpoints outside link-local ranges too: AWS's IPv6 one, Alibaba Cloud's.
    for (const host of ['[fd00:ec2::254]', '100.100.100.200']) {
      server.respond((_req, res) =>
        res.writeHead(302, { Location: `http://${host}/latest/meta-data/` }).end(),
      );
      expect(await call('redirecting', {})).toEqual({
        ok: false,
        text: refused.replace('169.254.169.254', host.replace(/^\[|\]$/g, '')),
      });
    }
    await registry.replace(snapshot.definitions.map((t) => t.raw));
  });

  it('reports a refused connection', async () => {
    const registry = engine.app.get(ToolRegistry);
    const snapshot = registry.active();
    await registry.replace([{ name: 'down', url: 'http://127.0.0.1:1/x', method: 'GET' }]);
    const result = await call('down', {});
    expect(result.text).toBe(
      "Error: tool request failed: cannot reach the tool's server (ECONNREFUSED)",
    );
    await registry.replace(snapshot.definitions.map((t) => t.raw));
  });

  it('follows at most 3 redirects', async () => {
    server.respond((req, res) => {
      const n = Number(req.path.split('/').pop());
      res.writeHead(302, { Location: `/api/items/${n + 1}` }).end();
    });
    const result = await call('get_item', { id: '0' });
    expect(result.text).toMatch(/^Error: tool request failed: .*redirect/i);
    expect(server.requests.map((r) => r.path)).toEqual([
      '/api/items/0',
      '/api/items/1',
      '/api/items/2',
      '/api/items/3',
    ]);
  });

  it('sends a form body when the tool declares that Content-Type', async () => {
    const registry = engine.app.get(ToolRegistry);
    const snapshot = registry.active();
    await registry.replace([
      {
        name: 'send_sms',
        url: `${base}/Messages.json`,
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      },
    ]);
    await call('send_sms', { To: '+393331234567', Body: 'Booked for 8 & 9', MediaUrl: ['a', 'b'] });
    expect(server.requests.at(-1)).toMatchObject({
      method: 'POST',
      body: 'To=%2B393331234567&Body=Booked%20for%208%20%26%209&MediaUrl=a&MediaUrl=b',
      headers: expect.objectContaining({ 'content-type': 'application/x-www-form-urlencoded' }),
    });
    await registry.replace(snapshot.definitions.map((t) => t.raw));
  });

  it('says when a redirect leads to no URL at all', async () => {
    server.respond((_req, res) => res.writeHead(302, { Location: 'http://[::1 /next' }).end());
    expect(await call('get_item', { id: '0' })).toEqual({
      ok: false,
      text: 'Error: tool request failed: the server redirected to an invalid URL (http://[::1 /next)',
    });
  });

  it('answers unknown tools and invalid verbs with the seed texts', async () => {
    expect(await call('nope', {})).toEqual({
      ok: false,
      text: "Error: unknown tool 'nope'",
      notActed: true,
      modelError: 'unknown_tool',
    });
    expect((await call('bad_verb', {})).text).toBe(
      "Error: invalid HTTP method 'GE T' for tool 'bad_verb'",
    );
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a header value with a line break without crashing', async () => {
    const result = await call('create_note', { token: 'a\r\nX-Evil: 1', text: 't' });
    expect(result.text).toBe(
      "Error: tool request failed: header 'Authorization' value contains a line break",
    );
    expect(server.requests).toHaveLength(0);
  });
});
