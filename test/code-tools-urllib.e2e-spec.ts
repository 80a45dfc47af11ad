import { gzipSync } from 'node:zlib';
import { callOnce, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/**
 * Code written with the standard library alone, as it is found in the wild: urllib.request's
 * urlopen and Request, an opener of its own, its HTTPError and URLError; http.client's own socket.
 */
const STDLIB = `import json
import urllib.error
import urllib.parse
import urllib.request


def stdlib(case: str) -> list:
    """Calls the API with the standard library."""
    base = "BASE"
    if case == "get":
        query = urllib.parse.urlencode({"q": "a b"})
        with urllib.request.urlopen(base + "/echo?" + query, timeout=5) as r:
            body = json.loads(r.read().decode(r.headers.get_content_charset() or "utf-8"))
            return [r.status, r.getcode(), r.reason, r.getheader("X-Echo"), r.geturl() == base + "/echo?q=a+b", body]
    if case == "post":
        req = urllib.request.Request(base + "/echo", data=json.dumps({"n": 1}).encode(), method="PUT",
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer \${TOOL_SECRET_API_TOKEN}"})
        with urllib.request.urlopen(req) as r:
            return json.loads(r.read())
    if case == "form":
        data = urllib.parse.urlencode({"a": "1", "b": "x y"}).encode()
        return json.loads(urllib.request.urlopen(base + "/echo", data).read())
    if case == "http_error":
        try:
            urllib.request.urlopen(base + "/missing")
        except urllib.error.HTTPError as e:
            return ["HTTPError", e.code, e.reason, e.read().decode(), isinstance(e, urllib.error.URLError)]
    if case == "redirect":
        r = urllib.request.build_opener().open(base + "/moved")
        return [r.status, r.geturl().endswith("/echo"), json.loads(r.read())["url"]]
    if case == "gzip":
        import gzip
        plain = urllib.request.urlopen(base + "/gzip").read()
        asked = urllib.request.urlopen(urllib.request.Request(base + "/gzip", headers={"Accept-Encoding": "gzip"}))
        return [plain.decode(), asked.headers["Content-Encoding"], gzip.decompress(asked.read()).decode()]
    if case == "latin1":
        r = urllib.request.urlopen(base + "/latin1")
        return [r.read().decode(r.headers.get_content_charset()), r.headers.get_content_charset()]
    if case == "refused":
        try:
            urllib.request.urlopen("http://127.0.0.1:1/", timeout=2)
        except urllib.error.URLError as e:
            return ["URLError", isinstance(e, OSError)]
    if case == "slow":
        try:
            urllib.request.urlopen(base + "/slow", timeout=0.5)
        except TimeoutError as e:
            return ["TimeoutError", str(e)]
    if case == "socket":
        import http.client
        try:
            http.client.HTTPConnection("127.0.0.1", 80, timeout=2).request("GET", "/")
        except OSError as e:
            return ["OSError", str(e)]
    return ["not caught"]
`;

describe('code tools written with urllib.request', () => {
  const rig = useEngineRig(
    (toolsUrl) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([{ type: 'python', code: STDLIB.replace('BASE', toolsUrl) }]),
      CODE_TOOLS_WORKERS: '1',
      CODE_TOOLS_ALLOW_PRIVATE_NETWORK: 'true',
      TOOL_SECRET_API_TOKEN: 'tok-81f2',
    }),
    (req, res) => {
      if (req.path === '/echo')
        return void res.writeHead(200, { 'Content-Type': 'application/json', 'X-Echo': '1' }).end(
          JSON.stringify({
            method: req.method,
            url: req.url,
            auth: req.headers.authorization ?? null,
            agent: req.headers['user-agent'],
            ...(req.body && { body: req.body, type: req.headers['content-type'] }),
          }),
        );
      // Compressed only when asked for, as servers do.
      if (req.path === '/gzip')
        return void (String(req.headers['accept-encoding']).includes('gzip')
          ? res.writeHead(200, { 'Content-Encoding': 'gzip' }).end(gzipSync('squeezed'))
          : res.end('plain'));
      if (req.path === '/moved') return void res.writeHead(302, { Location: '/echo' }).end();
      if (req.path === '/missing') return void res.writeHead(404).end('no such thing');
      if (req.path === '/latin1')
        return void res
          .writeHead(200, { 'Content-Type': 'text/plain; charset=iso-8859-1' })
          .end(Buffer.from('café', 'latin1'));
      if (req.path === '/slow') return void setTimeout(() => res.end('late'), 1500).unref();
      res.end('ok');
    },
  );

  it("fills in a secret's reference the code writes, and masks it in what comes back", async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    expect(JSON.parse((await callOnce(rig, ws, 'stdlib', { case: 'post' })).read)).toEqual({
      method: 'PUT',
      url: '/echo',
      auth: 'Bearer [secret]',
      agent: expect.stringMatching(/^Python-urllib\/3\./),
      body: '{"n": 1}',
      type: 'application/json',
    });
    expect(rig.tools.requests.at(-1)!.headers.authorization).toBe('Bearer tok-81f2');
    ws.close();
  }, 30_000);

  it.each([
    [
      'get',
      [
        200,
        200,
        'OK',
        '1',
        true,
        {
          method: 'GET',
          url: '/echo?q=a+b',
          auth: null,
          agent: expect.stringMatching(/^Python-urllib\/3\./),
        },
      ],
    ],
    [
      'form',
      {
        method: 'POST',
        url: '/echo',
        auth: null,
        agent: expect.any(String),
        body: 'a=1&b=x+y',
        type: 'application/x-www-form-urlencoded',
      },
    ],
    ['http_error', ['HTTPError', 404, 'Not Found', 'no such thing', true]],
    ['redirect', [200, true, '/echo']],
    // As urllib: compressed only when the code asks for it, and then given as sent.
    ['gzip', ['plain', 'gzip', 'squeezed']],
    // The body's own bytes, to be decoded in the charset it declares.
    ['latin1', ['café', 'iso-8859-1']],
    ['refused', ['URLError', true]],
    ['slow', ['TimeoutError', 'timed out']],
    [
      'socket',
      [
        'OSError',
        'code tools have no network of their own: requests (ces_requests) and urllib.request are carried out by the engine',
      ],
    ],
  ])(
    'answers and raises as urllib does: %s',
    async (which, expected) => {
      const ws = await WsClient.connect(rig.engine.wsUrl);
      expect(JSON.parse((await callOnce(rig, ws, 'stdlib', { case: which })).read)).toEqual(
        expected,
      );
      ws.close();
    },
    30_000,
  );
});
