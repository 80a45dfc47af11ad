import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Engine } from './support/engine.js';
import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';
import { RANDOM_FACT } from './support/code-tool-sources.js';
import { callOnce } from './support/turn-harness.js';
import { digestAnswered, DIGEST_CHALLENGE } from './support/digest.js';

/** Sends keys it never sees: the engine fills `${TOOL_SECRET_*}` in on the way out. */
const CRM = `def crm(which: str) -> dict:
    """Calls the CRM."""
    try:
        r = ces_requests.get("BASE/echo?key=\${TOOL_SECRET_CRM_KEY}", headers={"Authorization": "Bearer \${TOOL_SECRET_" + which + "}"})
    except Exception as e:
        return {"error": str(e)}
    return {"echo": r.json(), "header_in_code": "\${TOOL_SECRET_CRM_TOKEN}"}
`;

/** Calls crm inline: its requests get the secrets crm's code names, though this code names none. */
const CRM_SUMMARY = `def crm_summary() -> dict:
    """Summarises the CRM."""
    return {"inner": tools.crm({"which": "CRM_TOKEN"})}
`;

/** Names a secret in its own code, and hands its name to a tool whose code names none. */
const CALLER = `def caller() -> dict:
    """Asks fetch_any for the CRM token."""
    mine = "\${TOOL_SECRET_CRM_TOKEN}"
    return {"inner": tools.fetch_any({"ref": "CRM_TOKEN"})}
`;

const FETCH_ANY = `def fetch_any(ref: str) -> dict:
    """Sends the key it is given the name of."""
    try:
        ces_requests.get("BASE/echo", headers={"X-Key": "\${TOOL_SECRET_" + ref + "}"})
    except Exception as e:
        return {"error": str(e)}
    return {"sent": True}
`;

/** Reads where a redirect led, what the server echoed, and why a request failed: keys masked. */
const PEEK = `def peek() -> dict:
    """Peeks."""
    r = ces_requests.get("BASE/bounce?key=\${TOOL_SECRET_CRM_TOKEN}")
    try:
        ces_requests.get("http://\${TOOL_SECRET_CRM_TOKEN}.invalid/", timeout=3)
        error = None
    except Exception as e:
        error = str(e)
    return {"url": r.url, "echoed": r.headers.get("x-echo"), "cookie": r.cookies.get("seen"), "error": error}
`;

/** Sends a key to an API that redirects to another host. */
const HOP = `def hop() -> dict:
    """Follows a redirect."""
    r = ces_requests.get("BASE/hop", headers={"X-Api-Key": "\${TOOL_SECRET_CRM_TOKEN}", "X-Plain": "p"})
    return {"status": r.status_code, "text": r.text}
`;

/**
 * Keys in a query's params, a form, Basic and Digest auth and an upload's field, as code written
 * for requests sends them.
 */
const KEYS = `import requests
from requests.auth import HTTPBasicAuth, HTTPDigestAuth


def keys() -> list:
    """Sends keys."""
    a = requests.get("BASE/echo", params={"key": "\${TOOL_SECRET_CRM_KEY}", "q": "a b"})
    b = requests.post("BASE/form", data={"token": "\${TOOL_SECRET_CRM_TOKEN}"})
    c = requests.get("BASE/echo", auth=HTTPBasicAuth("agent", "\${TOOL_SECRET_CRM_TOKEN}"))
    d = requests.get("BASE/bin", headers={"X-Key": "\${TOOL_SECRET_CRM_TOKEN}"}).content
    e = requests.post("BASE/upload", data={"key": "\${TOOL_SECRET_CRM_TOKEN}"}, files={"f": ("a.bin", b"\\xff\\x00")})
    f = requests.get("BASE/digest", auth=HTTPDigestAuth("agent", "\${TOOL_SECRET_CRM_TOKEN}"))
    requests.post("BASE/json", json={"key": "\${TOOL_SECRET_CRM_QUOTED}"})
    return [a.status_code, b.status_code, c.status_code, b"tok-" in d, d.startswith(b"\\x00[secret]"), e.status_code,
            f.status_code]
`;

describe('ces_requests with CODE_TOOLS_ALLOW_PRIVATE_NETWORK=true', () => {
  const llm = new FakeLlm();
  const api = new RecordingServer();
  let engine: Engine;
  /** Another host (127.0.0.2): where the API's /hop redirects. */
  const elsewhere: IncomingHttpHeaders[] = [];
  const other = createServer((req, res) => {
    elsewhere.push(req.headers);
    res.end('landed');
  });

  beforeAll(async () => {
    const base = await api.start();
    await new Promise<void>((r) => other.listen(0, '127.0.0.2', r));
    const otherUrl = `http://127.0.0.2:${(other.address() as AddressInfo).port}`;
    api.respond((req, res) =>
      req.path === '/hop'
        ? res.writeHead(302, { Location: `${otherUrl}/landing` }).end()
        : req.path === '/bounce'
          ? res.writeHead(302, { Location: req.url.replace('/bounce', '/landed') }).end()
          : req.path === '/landed'
            ? res
                .writeHead(200, { 'X-Echo': req.url, 'Set-Cookie': `seen=${req.url}; Path=/` })
                .end('ok')
            : req.path === '/digest'
              ? digestAnswered(req.headers.authorization, req.method, 'tok-5e4d3c2b')
                ? res.end('let in')
                : res.writeHead(401, { 'WWW-Authenticate': DIGEST_CHALLENGE }).end()
              : req.path === '/echo'
                ? res.end(JSON.stringify({ url: req.url, auth: req.headers.authorization }))
                : req.path === '/bin'
                  ? res
                      .writeHead(200, { 'Content-Type': 'application/octet-stream' })
                      .end(
                        Buffer.concat([
                          Buffer.from([0]),
                          Buffer.from(String(req.headers['x-key'])),
                        ]),
                      )
                  : res
                      .writeHead(200, { 'Content-Type': 'application/json' })
                      .end(JSON.stringify({ text: 'Honey never spoils.' })),
    );
    engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        { type: 'python', code: RANDOM_FACT.replace('FACTS_URL', JSON.stringify(`${base}/fact`)) },
        { type: 'python', code: CRM.replace('BASE', base) },
        { type: 'python', code: CRM_SUMMARY },
        { type: 'python', code: HOP.replace('BASE', base) },
        { type: 'python', code: CALLER },
        { type: 'python', code: FETCH_ANY.replace('BASE', base) },
        { type: 'python', code: PEEK.replace('BASE', base) },
        { type: 'python', code: KEYS.replaceAll('BASE', base) },
      ]),
      TOOL_SECRET_CRM_KEY: 'key/123 456',
      TOOL_SECRET_CRM_TOKEN: 'tok-5e4d3c2b',
      TOOL_SECRET_CRM_QUOTED: 'q"u\\o',
      CODE_TOOLS_WORKERS: '1',
      CODE_TOOLS_ALLOW_PRIVATE_NETWORK: 'true',
    });
  }, 60000);
  afterAll(async () => {
    await engine?.stop();
    await llm.stop();
    await api.stop();
    await new Promise((r) => other.close(r));
  });

  /** A turn where the model calls `name`, then answers: what it read of the call. */
  const callAndRead = async (ws: WsClient, name: string): Promise<unknown> => {
    api.requests.length = 0;
    return JSON.parse((await callOnce({ llm }, ws, name)).read);
  };

  it('sends no secret to another host a redirect leads to', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_hop', name: 'hop', arguments: {} }]),
      sseText(['Ok.']),
    );
    await ws.turn('hop');
    expect(JSON.parse(llm.requests.at(-1)!.body.messages.at(-1).content)).toEqual({
      status: 200,
      text: 'landed',
    });
    expect(api.requests.find((r) => r.path === '/hop')!.headers['x-api-key']).toBe('tok-5e4d3c2b');
    expect(elsewhere).toHaveLength(1);
    expect(elsewhere[0]).not.toHaveProperty('x-api-key');
    expect(elsewhere[0]!['x-plain']).toBe('p');
    ws.close();
    llm.reset();
    api.requests.length = 0;
  });

  it('runs the seed example against a real loopback API', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_fact', name: 'get_random_fact', arguments: {} }]),
      sseText(['Here is one.']),
    );
    await ws.turn('Tell me a fact');
    expect(llm.requests[1]!.body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_fact',
      content: '"Honey never spoils."',
    });
    expect(api.requests[0]).toMatchObject({ method: 'GET', url: '/fact?language=en' });
    expect(api.requests[0]!.headers.accept).toBe('application/json');
    // The code's request is part of the turn's trace, as the LLM requests are.
    const trace = (h: unknown) => /^00-([0-9a-f]{32})-[0-9a-f]{16}-01$/.exec(String(h))?.[1];
    expect(trace(api.requests[0]!.headers.traceparent)).toBeDefined();
    expect(trace(api.requests[0]!.headers.traceparent)).toBe(
      trace(llm.requests[0]!.headers.traceparent),
    );
    ws.close();
  });

  it('fills ${TOOL_SECRET_*} in on the way out, and masks a key the server echoes', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_crm', name: 'crm', arguments: { which: 'CRM_TOKEN' } }]),
      sseText(['Done.']),
      sseStructuredCalls([{ id: 'call_bad', name: 'crm', arguments: { which: 'NOPE' } }]),
      sseText(['Done.']),
    );
    api.requests.length = 0;
    await ws.turn('look it up');
    expect(api.requests[0]).toMatchObject({ url: '/echo?key=key%2F123%20456' });
    expect(api.requests[0]!.headers.authorization).toBe('Bearer tok-5e4d3c2b');
    const seen = JSON.parse(llm.requests.at(-1)!.body.messages.at(-1).content);
    expect(seen).toEqual({
      echo: { url: '/echo?key=[secret]', auth: 'Bearer [secret]' },
      header_in_code: '${TOOL_SECRET_CRM_TOKEN}',
    });
    // A reference the code does not write itself (here built from the model's argument) is not
    // filled in: a model steered to a URL of its choosing cannot have a key sent there.
    await ws.turn('and with another key');
    expect(JSON.parse(llm.requests.at(-1)!.body.messages.at(-1).content)).toEqual({
      error: "${TOOL_SECRET_NOPE} is not named in this tool's code, so it is not filled in",
    });
    expect(api.requests).toHaveLength(1);
    ws.close();
  });

  it('fills ${TOOL_SECRET_*} in params, a form and HTTPBasicAuth, encoded as each needs', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    // A binary body that echoes a key reaches the code with the key masked, as a text one does.
    expect(await callAndRead(ws, 'keys')).toEqual([200, 200, 200, false, true, 200, 200]);
    expect(api.requests.map((r) => r.url)).toEqual([
      '/echo?key=key%2F123%20456&q=a+b',
      '/form',
      '/echo',
      '/bin',
      '/upload',
      '/digest',
      '/digest',
      '/json',
    ]);
    // In json=, a key is filled in escaped for JSON: the body stays JSON.
    expect(JSON.parse(api.requests[7]!.body)).toEqual({ key: 'q"u\\o' });
    expect(api.requests[1]!.body).toBe('token=tok-5e4d3c2b');
    expect(api.requests[2]!.headers.authorization).toBe(
      `Basic ${Buffer.from('agent:tok-5e4d3c2b').toString('base64')}`,
    );
    // In a body of bytes (an upload), the key's bytes, the file's beside them as they were.
    const upload = api.requests[4]!;
    const form = await new Request('http://upload/', {
      method: 'POST',
      headers: { 'Content-Type': String(upload.headers['content-type']) },
      body: upload.bytes,
    }).formData();
    expect(form.get('key')).toBe('tok-5e4d3c2b');
    const file = form.get('f') as File;
    expect([file.name, [...new Uint8Array(await file.arrayBuffer())]]).toEqual(['a.bin', [255, 0]]);
    ws.close();
  });

  it('fills in, for a code tool called inline by another, the secrets named in its own code', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    const read = await callAndRead(ws, 'crm_summary');
    expect(api.requests[0]).toMatchObject({ url: '/echo?key=key%2F123%20456' });
    expect(api.requests[0]!.headers.authorization).toBe('Bearer tok-5e4d3c2b');
    expect(read).toEqual({
      inner: {
        echo: { url: '/echo?key=[secret]', auth: 'Bearer [secret]' },
        header_in_code: '${TOOL_SECRET_CRM_TOKEN}',
      },
    });
    ws.close();
  });

  it("does not fill in, for a code tool called inline, a secret only its caller's code names", async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    expect(await callAndRead(ws, 'caller')).toEqual({
      inner: {
        error: "${TOOL_SECRET_CRM_TOKEN} is not named in this tool's code, so it is not filled in",
      },
    });
    expect(api.requests).toHaveLength(0);
    ws.close();
  });

  it('masks a key in the URL a redirect led to, in the headers and cookies echoed and in an error', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    const read = (await callAndRead(ws, 'peek')) as Record<string, string>;
    expect(api.requests.map((r) => r.url)).toEqual([
      '/bounce?key=tok-5e4d3c2b',
      '/landed?key=tok-5e4d3c2b',
    ]);
    expect(JSON.stringify(read)).not.toContain('tok-5e4d3c2b');
    expect(read.url).toMatch(/\/landed\?key=\[secret\]$/);
    expect(read.echoed).toBe('/landed?key=[secret]');
    expect(read.cookie).toBe('/landed?key=[secret]');
    // The name lookup fails (ENOTFOUND, naming the host), or on a slow resolver times out.
    expect(read.error).toMatch(/\[secret\]\.invalid|timed out/);
    ws.close();
  });
});
