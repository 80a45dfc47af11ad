import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestsApi } from './support/requests-api.js';
import { callOnce, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/**
 * Code written for Python's requests, as it is found in the wild: `import requests`, a Session
 * with a key header and Basic auth, headers read in any case, and the exceptions it catches.
 */
const PORTED = readFileSync('test/fixtures/code-tools/ported-requests.py', 'utf8');

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
    requestsApi(hits),
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
