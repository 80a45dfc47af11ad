import { echoed } from './support/recording-server.js';
import { createHmac } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { digestAnswered, DIGEST_CHALLENGE } from './support/digest.js';
import { callOnce, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/**
 * Code written for Python's requests, as it is found in the wild: `import requests`, a Session
 * with a key header and Basic auth, headers read in any case, and the exceptions it catches.
 */
const PORTED = `import requests
import requests.exceptions
from requests.exceptions import ConnectionError, HTTPError, ReadTimeout, TooManyRedirects


def ported(case: str) -> list:
    """Calls the API as code written for requests does."""
    base = "BASE"
    if case == "session":
        with requests.Session() as s:
            s.headers.update({"X-Api-Key": "k-1"})
            s.auth = ("agent", "s3cret")
            r = s.get(base + "/echo", params={"q": "a b"}, cookies={"lang": "it"})
            r.raise_for_status()
            return [r.status_code, r.headers["Content-Type"], "X-ECHO" in r.headers, r.json()]
    if case == "not_json":
        try:
            requests.get(base + "/plain").json()
        except requests.JSONDecodeError as e:
            return ["JSONDecodeError", isinstance(e, ValueError), isinstance(e, requests.RequestException)]
    if case == "http_error":
        said = []
        for path in ("/missing", "/down"):
            try:
                requests.get(base + path).raise_for_status()
            except HTTPError as e:
                said += [str(e), e.response.status_code]
        return said
    if case == "slow":
        try:
            requests.get(base + "/slow", timeout=(0.5, 0.8))
        except ReadTimeout as e:
            return ["ReadTimeout", str(e), isinstance(e, requests.Timeout)]
    if case == "slow_but_allowed":
        r = requests.get(base + "/slow", timeout=(0.2, 3))
        return [r.text, 1.2 < r.elapsed.total_seconds() < 5]
    if case == "refused":
        try:
            requests.get("http://127.0.0.1:1/", timeout=2)
        except ConnectionError as e:
            return ["ConnectionError", isinstance(e, requests.RequestException)]
    if case == "loop":
        try:
            requests.get(base + "/loop")
        except TooManyRedirects as e:
            return ["TooManyRedirects", str(e)]
    if case == "positional":
        r = requests.post(base + "/echo", {"a": "1"})
        found = requests.head(base + "/loop").status_code == requests.codes.found
        return [r.json()["body"], r.json()["type"], found, requests.codes["not_found"]]
    if case == "lines":
        r = requests.get(base + "/lines", stream=True)
        return [list(r.iter_lines(decode_unicode=True)), [c.decode() for c in r.iter_content(4)]]
    if case == "login":
        with requests.Session() as s:
            first = s.post(base + "/login", json={"user": "agent"})
            again = s.get(base + "/echo").json()["cookie"]
            elsewhere = s.get("OTHER/").text
            s.cookies["lang"] = "it"
            everywhere = s.get("OTHER/").text
            return [first.cookies, again, elsewhere, s.cookies["sid"], first.cookies.get_dict(), everywhere]
    if case == "no_follow":
        r = requests.get(base + "/loop", allow_redirects=False)
        return [r.status_code, r.headers["location"], bool(r)]
    if case == "encoded":
        said = []
        for params in ("q=paris&n=1", [("a", "1"), ("a", "2")], {"tag": ["x", "y"], "on": True, "skip": None, "n": 1.5}):
            said.append(requests.get(base + "/echo?k=v", params=params).json()["url"])
        with requests.Session() as s:
            s.params = {"key": "k"}
            said.append(s.get(base + "/echo", params=[("a", "1")]).json()["url"])
        r = requests.post(base + "/echo", data={"tag": ["x", "y"], "on": True})
        return said + [r.json()["body"], r.json()["type"]]
    if case == "auth_objects":
        from requests.auth import AuthBase, HTTPBasicAuth

        class Bearer(AuthBase):
            def __init__(self, token):
                self.token = token

            def __call__(self, r):
                r.headers["Authorization"] = "Bearer " + self.token
                return r

        basic = requests.get(base + "/echo", auth=HTTPBasicAuth("agent", "s3cret")).json()["auth"]
        with requests.Session() as s:
            s.auth = Bearer("t-1")
            bearer = s.get(base + "/echo").json()["auth"]
        return [basic, bearer, isinstance(requests.auth.HTTPBasicAuth("a", "b"), requests.auth.AuthBase)]
    if case == "binary":
        r = requests.get(base + "/png")
        return [list(r.content), list(r.iter_content(4))[0].hex(), len(requests.get(base + "/plain").content)]
    if case == "upload":
        import io
        audio = bytes(range(256))
        with open("/tmp/note.txt", "w") as f:
            f.write("héllo")
        with open("/tmp/note.txt", "rb") as note:
            r = requests.post(base + "/upload", data={"lang": "it", "n": [1, 2]},
                              files={"audio": ("call.wav", io.BytesIO(audio), "audio/wav"), "note": note,
                                     "plain": (None, "just a field")})
        raw = requests.put(base + "/raw", data=audio, headers={"Content-Type": "audio/wav"}).json()
        from_file = requests.put(base + "/raw", data=io.BytesIO(b"\\x00\\xff")).json()
        return [r.json(), raw, from_file]
    if case == "retries":
        from requests.adapters import HTTPAdapter
        from urllib3.util.retry import Retry
        s = requests.Session()
        s.mount("http://", HTTPAdapter(max_retries=Retry(total=3, backoff_factor=0.1, status_forcelist=[502, 503])))
        ok = s.get(base + "/flaky?id=a")
        post = s.post(base + "/flaky?id=b")
        try:
            s.get(base + "/flaky?id=c&fails=9")
        except requests.exceptions.RetryError as e:
            spent = str(e).replace(base, "")
        lenient = requests.Session()
        lenient.mount(base + "/flaky", HTTPAdapter(max_retries=Retry(total=2, status_forcelist=[503], raise_on_status=False)))
        last = lenient.get(base + "/flaky?id=d&fails=9").status_code
        limited = requests.Session()
        limited.mount("http://", HTTPAdapter(max_retries=1))
        later = limited.get(base + "/flaky?id=e&fails=1&status=429")
        try:
            s.get(base + "/cut?id=f")
        except requests.ConnectionError:
            cut = "ConnectionError"
        return [ok.status_code, ok.text, post.status_code, spent, last, later.status_code,
                later.elapsed.total_seconds() >= 1, cut]
    if case == "adapters":
        from requests.adapters import HTTPAdapter
        from requests.packages.urllib3.util.retry import Retry as Older
        import urllib3

        class TimeoutAdapter(HTTPAdapter):
            def send(self, request, **kwargs):
                kwargs["timeout"] = kwargs.get("timeout") or 0.5
                request.headers["X-Api-Key"] = "from-adapter"
                return super().send(request, **kwargs)

        s = requests.Session()
        s.mount("http://", TimeoutAdapter())
        key = s.get(base + "/echo").json()["key"]
        try:
            s.get(base + "/slow")
        except requests.ReadTimeout:
            timed_out = True
        return [key, timed_out, Older is urllib3.Retry, Older(method_whitelist=["POST"]).allowed_methods]
    if case == "history_hooks":
        with requests.Session() as s:
            s.hooks["response"].append(lambda r, *args, **kwargs: r.raise_for_status())
            r = s.post(base + "/signin", data={"user": "agent"})
            again = s.get(base + "/echo").json()["cookie"]
            try:
                s.get(base + "/missing")
            except requests.HTTPError as e:
                hooked = e.response.status_code
        try:
            requests.get(base + "/echo", cert=("agent.pem", "agent.key"))
        except requests.RequestException as e:
            cert = str(e).split(":")[0]
        return [r.text, [h.status_code for h in r.history], r.history[0].cookies, r.url == base + "/welcome",
                again, hooked, cert]
    if case == "digest":
        from requests.auth import HTTPDigestAuth
        r = requests.get(base + "/digest?x=1", auth=HTTPDigestAuth("agent", "s3cret"))
        wrong = requests.get(base + "/digest", auth=HTTPDigestAuth("agent", "nope"))
        return [r.status_code, r.text, wrong.status_code]
    if case == "links":
        r = requests.get(base + "/page?n=1")
        pages = [r.text]
        while "next" in r.links:
            r = requests.get(r.links["next"]["url"])
            pages.append(r.text)
        moved = requests.get(base + "/loop", allow_redirects=False)
        return [pages, r.links["first"]["url"].endswith("n=1"), moved.is_redirect, moved.is_permanent_redirect]
    if case == "signed":
        import hashlib
        import hmac
        from requests.auth import AuthBase

        class Signed(AuthBase):
            def __call__(self, r):
                body = r.body if isinstance(r.body, bytes) else (r.body or "").encode()
                r.headers["X-Signature"] = hmac.new(b"k", r.url.encode() + body, hashlib.sha256).hexdigest()
                return r

        a = requests.post(base + "/signed", params={"q": "a b"}, json={"n": 1, "s": "é"}, auth=Signed()).text
        b = requests.post(base + "/signed", data={"x": "1"}, auth=Signed()).text
        return [a, b]
    if case == "nan":
        try:
            requests.post(base + "/echo", json={"ratio": float("nan")})
        except requests.exceptions.InvalidJSONError as e:
            return ["InvalidJSONError", str(e), isinstance(e, requests.RequestException)]
    if case == "gzip":
        r = requests.get(base + "/gzip")
        return [r.json(), r.headers["Content-Encoding"]]
    if case == "big":
        r = requests.get(base + "/big")
        return [len(r.text), r.text.count('"'), r.text[-3:]]
    return ["not caught"]
`;

describe('code tools written for Python requests', () => {
  /** The requests to /flaky, by id. */
  const hits = new Map<string, number>();
  /** Another host (127.0.0.2): the Cookie header it was sent. */
  const other = createServer((req, res) => res.end(req.headers.cookie ?? 'no cookie'));
  let otherUrl = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.2', resolve));
    otherUrl = `http://127.0.0.2:${(other.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => other.close(resolve)));
  const rig = useEngineRig(
    (toolsUrl) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        { type: 'python', code: PORTED.replace('BASE', toolsUrl).replaceAll('OTHER', otherUrl) },
      ]),
      CODE_TOOLS_WORKERS: '1',
      CODE_TOOLS_ALLOW_PRIVATE_NETWORK: 'true',
      // Responses up to 8 MiB are read (the default is 1 MiB): code tools read them too.
      LLM_TOOL_MAX_RESPONSE_BYTES: String(8 * 1024 * 1024),
    }),
    (req, res) => {
      if (req.path === '/echo')
        return void res
          .writeHead(200, { 'Content-Type': 'application/json', 'X-Echo': '1' })
          .end(echoed(req));
      if (req.path === '/upload')
        return void new Request('http://upload/', {
          method: 'POST',
          headers: { 'Content-Type': String(req.headers['content-type']) },
          body: req.bytes,
        })
          .formData()
          .then(async (form) => {
            const parts = [];
            for (const [name, value] of form)
              parts.push(
                typeof value === 'string'
                  ? [name, value]
                  : [
                      name,
                      value.name,
                      value.type,
                      Buffer.from(await value.arrayBuffer()).toString('hex'),
                    ],
              );
            res.end(JSON.stringify(parts));
          });
      if (req.path === '/raw')
        return void res.end(
          JSON.stringify([req.headers['content-type'] ?? null, req.bytes.toString('hex')]),
        );
      // Fails `fails` times (2 unless given) for each id, with `status` (503 unless given; a
      // 429 asks for a second's wait), then answers.
      if (req.path === '/flaky') {
        const id = req.query.id!;
        hits.set(id, (hits.get(id) ?? 0) + 1);
        if (hits.get(id)! <= Number(req.query.fails ?? 2)) {
          const status = Number(req.query.status ?? 503);
          return void res.writeHead(status, status === 429 ? { 'Retry-After': '1' } : {}).end();
        }
        return void res.end(`answered at try ${hits.get(id)}`);
      }
      // The connection cut before any answer.
      if (req.path === '/cut') {
        hits.set(req.query.id!, (hits.get(req.query.id!) ?? 0) + 1);
        return void res.socket?.destroy();
      }
      // A login that sets its cookie on the redirect to the page that needs it.
      if (req.path === '/signin')
        return void res
          .writeHead(302, { Location: '/welcome', 'Set-Cookie': 'sid=s-9; Path=/; HttpOnly' })
          .end();
      if (req.path === '/welcome')
        return void res.end(`welcome, ${String(req.headers.cookie ?? 'stranger')}`);
      if (req.path === '/digest')
        return void (digestAnswered(req.headers.authorization, req.method, 's3cret')
          ? res.end('let in')
          : res
              .writeHead(401, {
                'WWW-Authenticate': `Basic realm="x", ${DIGEST_CHALLENGE}`,
              })
              .end());
      // Signed as HMAC-signed APIs are: the URL and the body as sent.
      if (req.path === '/signed') {
        const signed = Buffer.concat([
          Buffer.from(`http://${String(req.headers.host)}${req.url}`),
          req.bytes,
        ]);
        const valid =
          createHmac('sha256', 'k').update(signed).digest('hex') === req.headers['x-signature'];
        return void res.end(`${valid ? 'valid' : 'invalid'} ${req.body}`);
      }
      // Pages of a list, linked as GitHub's API links them.
      if (req.path === '/page') {
        const n = Number(req.query.n);
        const page = (at: number) => `<http://${String(req.headers.host)}/page?n=${at}>`;
        const links = [`${page(1)}; rel="first"`, ...(n < 3 ? [`${page(n + 1)}; rel="next"`] : [])];
        return void res.writeHead(200, { Link: links.join(', ') }).end(`page ${n}`);
      }
      if (req.path === '/gzip')
        return void (String(req.headers['accept-encoding']).includes('gzip')
          ? res
              .writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Type': 'application/json' })
              .end(gzipSync('{"squeezed": true}'))
          : res.end('{"squeezed": false}'));
      if (req.path === '/plain') return void res.end('not json');
      if (req.path === '/png')
        return void res
          .writeHead(200, { 'Content-Type': 'image/png' })
          .end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 0xff, 0xfe]));
      // 5 MiB, every byte of it escaped in JSON (10 MiB so).
      if (req.path === '/big') return void res.end(`${'"'.repeat(5 * 1024 * 1024 - 3)}end`);
      if (req.path === '/lines') return void res.end('data: 1\n\ndata: 2\n');
      if (req.path === '/missing') return void res.writeHead(404).end('no');
      if (req.path === '/down') return void res.writeHead(503).end('later');
      if (req.path === '/login')
        return void res
          .writeHead(200, { 'Set-Cookie': ['sid=s-42; Path=/; HttpOnly', 'theme=dark'] })
          .end('welcome');
      if (req.path === '/loop') return void res.writeHead(302, { Location: '/loop' }).end();
      if (req.path === '/slow') return void setTimeout(() => res.end('late'), 1500).unref();
      res.end('ok');
    },
  );

  const ported = async (ws: WsClient, args: Record<string, unknown>) =>
    JSON.parse((await callOnce(rig, ws, 'ported', args)).read) as unknown;

  it('runs with import requests: a Session sends its headers, auth and cookies; headers are read in any case', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    expect(await ported(ws, { case: 'session' })).toEqual([
      200,
      'application/json',
      true,
      {
        url: '/echo?q=a+b',
        key: 'k-1',
        auth: `Basic ${Buffer.from('agent:s3cret').toString('base64')}`,
        cookie: 'lang=it',
      },
    ]);
    ws.close();
  }, 30_000);

  // A Session mounted with HTTPAdapter(max_retries=Retry(…)), as production code retries: a status
  // of status_forcelist retried for idempotent methods only, RetryError once spent (or the last
  // answer, raise_on_status=False), a 429's Retry-After waited for; each try a request.
  it('retries as a Session mounted with an HTTPAdapter and a Retry does', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    expect(await ported(ws, { case: 'retries' })).toEqual([
      200,
      'answered at try 3',
      503,
      "Max retries exceeded with url: /flaky?id=c&fails=9 (Caused by ResponseError('too many 503 error responses'))",
      503,
      200,
      true,
      'ConnectionError',
    ]);
    expect(Object.fromEntries(hits)).toEqual({ a: 3, b: 1, c: 4, d: 3, e: 2, f: 4 });
    ws.close();
  }, 30_000);

  it.each([
    ['not_json', ['JSONDecodeError', true, true]],
    [
      'http_error',
      [
        '404 Client Error: Not Found for url: URL/missing',
        404,
        '503 Server Error: Service Unavailable for url: URL/down',
        503,
      ],
    ],
    // (connect, read): the longer bounds the request.
    ['slow_but_allowed', ['late', true]],
    ['slow', ['ReadTimeout', 'timed out', true]],
    ['refused', ['ConnectionError', true]],
    ['loop', ['TooManyRedirects', 'too many redirects (at most 3 are followed)']],
    ['no_follow', [302, '/loop', true]],
    // stream=True and iter_lines(), as code reading an event stream writes it: the body read whole.
    [
      'lines',
      [
        ['data: 1', '', 'data: 2'],
        ['data', ': 1\n', '\ndat', 'a: 2', '\n'],
      ],
    ],
    // A Session keeps what the host set and sends it back there only.
    // The Session's cookies hold them (read as requests' jar), and one the code sets goes anywhere.
    [
      'login',
      [
        { sid: 's-42', theme: 'dark' },
        'sid=s-42; theme=dark',
        'no cookie',
        's-42',
        { sid: 's-42', theme: 'dark' },
        'lang=it',
      ],
    ],
    // post(url, data) as requests takes it; head() follows no redirect unless asked.
    ['positional', ['a=1', 'application/x-www-form-urlencoded', true, 404]],
    // params and a form's data as requests encodes them: a query string as it is, pairs, a list
    // value repeated, None left out, True as Python writes it.
    [
      'encoded',
      [
        '/echo?k=v&q=paris&n=1',
        '/echo?k=v&a=1&a=2',
        '/echo?k=v&tag=x&tag=y&on=True&n=1.5',
        '/echo?a=1',
        'tag=x&tag=y&on=True',
        'application/x-www-form-urlencoded',
      ],
    ],
    // requests.auth's HTTPBasicAuth, and an AuthBase of the code's own (a bearer token).
    [
      'auth_objects',
      [`Basic ${Buffer.from('agent:s3cret').toString('base64')}`, 'Bearer t-1', true],
    ],
    // A body that is not text reaches the code as its bytes (`content`), as requests gives it.
    ['binary', [[0x89, 0x50, 0x4e, 0x47, 0, 1, 0xff, 0xfe], '89504e47', 8]],
    // Uploads as requests sends them: files= as multipart/form-data beside data's fields (a file
    // object, a file's bytes with its name and type, a plain field), bytes or a file as the body.
    [
      'upload',
      [
        [
          ['lang', 'it'],
          ['n', '1'],
          ['n', '2'],
          ['audio', 'call.wav', 'audio/wav', Buffer.from([...Array(256).keys()]).toString('hex')],
          // No Content-Type sent for it, as requests sends none: the parser's default.
          ['note', 'note.txt', 'text/plain', Buffer.from('héllo').toString('hex')],
          ['plain', 'just a field'],
        ],
        ['audio/wav', Buffer.from([...Array(256).keys()]).toString('hex')],
        [null, '00ff'],
      ],
    ],
    // An adapter of the code's own (a default timeout, a header), and urllib3's Retry by its
    // older names.
    ['adapters', ['from-adapter', true, true, ['POST']]],
    // A redirect's cookies go on to the page it leads to (and stay in the Session), the redirect
    // is in history; a Session's response hook runs on each answer; cert= is refused saying why.
    [
      'history_hooks',
      [
        'welcome, sid=s-9',
        [302],
        { sid: 's-9' },
        true,
        'sid=s-9',
        404,
        'cert= is not available to code tools',
      ],
    ],
    // HTTPDigestAuth: the engine answers the 401's challenge (a PBX's, a camera's API).
    ['digest', [200, 'let in', 401]],
    // Paging by the Link header (r.links), as requests parses it; a redirect not followed.
    ['links', [['page 1', 'page 2', 'page 3'], true, true, false]],
    // An auth of the code's own signs the request as requests hands it over: the URL with its
    // query, the body as sent (json= written as requests writes it).
    ['signed', ['valid {"n": 1, "s": "\\u00e9"}', 'valid x=1']],
    // JSON has no NaN: refused before sending, as requests refuses it.
    ['nan', ['InvalidJSONError', 'Out of range float values are not JSON compliant: nan', true]],
    // Compressed bodies asked for and decoded, as requests does.
    ['gzip', [{ squeezed: true }, 'gzip']],
    // A response as large as LLM_TOOL_MAX_RESPONSE_BYTES allows reaches the code whole.
    ['big', [5 * 1024 * 1024, 5 * 1024 * 1024 - 3, 'end']],
  ])(
    'raises what requests raises, and answers as it does: %s',
    async (which, expected) => {
      const ws = await WsClient.connect(rig.engine.wsUrl);
      const wanted = JSON.parse(
        JSON.stringify(expected).replaceAll('URL', rig.toolsUrl),
      ) as unknown;
      expect(await ported(ws, { case: which })).toEqual(wanted);
      ws.close();
    },
    30_000,
  );
});
