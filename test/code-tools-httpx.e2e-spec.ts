import { echoed } from './support/recording-server.js';
import { digestAnswered, DIGEST_CHALLENGE } from './support/digest.js';
import { callOnce, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/** Code written for httpx, as it is found in the wild: a Client, its errors, module functions. */
const HTTPX = `import httpx


def httpx_api(case: str) -> list:
    """Calls the API with httpx."""
    base = "BASE"
    if case == "client":
        with httpx.Client(base_url=base, headers={"X-Api-Key": "k-1"}, params={"lang": "it"}, timeout=5) as client:
            r = client.get("/echo", params={"q": "a b"}, headers={"X-API-KEY": "k-2"})
            r.raise_for_status()
            posted = client.post("echo", json={"n": 1}).json()
            return [r.status_code, r.is_success, r.headers["content-type"], r.json(), posted["body"], posted["type"]]
    if case == "status_error":
        try:
            httpx.get(base + "/missing").raise_for_status()
        except httpx.HTTPStatusError as e:
            return [str(e).splitlines()[0].replace(base, "URL"), e.response.status_code, isinstance(e, httpx.HTTPError)]
    if case == "redirects":
        first = httpx.get(base + "/moved")
        followed = httpx.get(base + "/moved", follow_redirects=True)
        return [first.status_code, first.is_redirect, followed.status_code, followed.json()["url"]]
    if case == "slow":
        try:
            httpx.Client(timeout=httpx.Timeout(0.5)).get(base + "/slow")
        except httpx.TimeoutException as e:
            return [type(e).__name__, isinstance(e, httpx.RequestError)]
    if case == "refused":
        try:
            httpx.get("http://127.0.0.1:1/")
        except httpx.ConnectError as e:
            return ["ConnectError", isinstance(e, httpx.TransportError), e.request.url]
    if case == "secret":
        r = httpx.post(base + "/echo", headers={"Authorization": "Bearer \${TOOL_SECRET_API_TOKEN}"}, data={"a": "1"})
        return [r.json()["auth"], r.json()["body"], r.status_code == httpx.codes.OK]
    if case == "digest":
        return httpx.get(base + "/digest", auth=httpx.DigestAuth("agent", "s3cret")).text
    if case == "hooks":
        seen = []

        def sign(request):
            request.headers["X-Api-Key"] = "signed"

        def check(response):
            seen.append(response.status_code)
            response.raise_for_status()

        with httpx.Client(base_url=base, event_hooks={"request": [sign], "response": [check]}) as client:
            key = client.get("/echo").json()["key"]
            try:
                client.get("/missing")
            except httpx.HTTPStatusError as e:
                return [key, seen, e.response.status_code]
    if case == "stream":
        with httpx.Client() as client:
            with client.stream("GET", base + "/lines") as r:
                return list(r.iter_lines())
    return ["not caught"]
`;

describe('code tools written for httpx', () => {
  const rig = useEngineRig(
    (toolsUrl) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([{ type: 'python', code: HTTPX.replace('BASE', toolsUrl) }]),
      CODE_TOOLS_WORKERS: '1',
      CODE_TOOLS_ALLOW_PRIVATE_NETWORK: 'true',
      TOOL_SECRET_API_TOKEN: 'tok-77aa',
    }),
    (req, res) => {
      if (req.path === '/echo')
        return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(echoed(req));
      if (req.path === '/digest')
        return void (digestAnswered(req.headers.authorization, req.method, 's3cret')
          ? res.end('let in')
          : res.writeHead(401, { 'WWW-Authenticate': DIGEST_CHALLENGE }).end());
      if (req.path === '/moved') return void res.writeHead(302, { Location: '/echo' }).end();
      if (req.path === '/missing') return void res.writeHead(404).end('no');
      if (req.path === '/lines') return void res.end('one\ntwo\n');
      if (req.path === '/slow') return void setTimeout(() => res.end('late'), 1500).unref();
      res.end('ok');
    },
  );

  it("fills in a secret's reference the code writes, and masks it in what comes back", async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    expect(JSON.parse((await callOnce(rig, ws, 'httpx_api', { case: 'secret' })).read)).toEqual([
      'Bearer [secret]',
      'a=1',
      true,
    ]);
    expect(rig.tools.requests.at(-1)!.headers.authorization).toBe('Bearer tok-77aa');
    ws.close();
  }, 30_000);

  it.each([
    [
      'client',
      [
        200,
        true,
        'application/json',
        // The request's header over the client's, whatever their case.
        { url: '/echo?lang=it&q=a+b', key: 'k-2' },
        // As requests writes it (httpx 0.28 leaves out the spaces).
        '{"n": 1}',
        'application/json',
      ],
    ],
    ['status_error', ["Client error '404 Not Found' for url 'URL/missing'", 404, true]],
    // httpx follows no redirect unless asked.
    ['redirects', [302, true, 200, '/echo']],
    ['slow', ['ReadTimeout', true]],
    ['refused', ['ConnectError', true, 'http://127.0.0.1:1/']],
    ['stream', ['one', 'two']],
    // Event hooks: a request's headers set, a response's status raised, as httpx runs them.
    ['hooks', ['signed', [200, 404], 404]],
    ['digest', 'let in'],
  ])(
    'answers and raises as httpx does: %s',
    async (which, expected) => {
      const ws = await WsClient.connect(rig.engine.wsUrl);
      expect(JSON.parse((await callOnce(rig, ws, 'httpx_api', { case: which })).read)).toEqual(
        expected,
      );
      ws.close();
    },
    30_000,
  );
});
