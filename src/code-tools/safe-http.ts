import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { assertAllowedLiteral, guardedLookup, isPublicAddress } from '../tools/address-guard.js';
import {
  CREDENTIAL_HEADER,
  MAX_REDIRECTS,
  redirectOf,
  TOO_MANY_REDIRECTS,
} from '../common/redirects.js';
import { ACCEPTED_ENCODINGS, readBody } from './response-reading.js';
import { egressAgents, lookupCheck } from '../common/egress.js';
import { digestAuthorization, digestChallenge } from './digest-auth.js';
import { hopOf, withCookies } from './redirect-chain.js';
import { failureOf, HttpFailure } from './http-failure.js';
import { ENGINE_VERSION } from '../version.js';
import { withTimeout } from '../common/timeout-signal.js';

export { isPublicAddress } from '../tools/address-guard.js';
export { HttpFailure, type HttpFailureKind } from './http-failure.js';

/** What `ces_requests` asks for. */
export interface PyHttpRequest {
  method: string;
  url: string;
  /** The query to add, encoded by the runtime as requests encodes it (python_requests.py). */
  params?: string | null;
  /** The body as the code gave it (a str, or bytes as UTF-8 text). */
  data?: string | null;
  /** A form's `data` (a dict or pairs), encoded by the runtime as requests encodes it. */
  form?: string | null;
  /** A body of bytes (base64): `data` given as bytes or a file, or a `files=` upload. */
  data_b64?: string | null;
  /** `json=` as the runtime wrote it (requests' separators), sent as it is. */
  json_text?: string | null;
  headers?: Record<string, string> | null;
  timeout?: number | null;
  /** `(user, password)`: sent as HTTP Basic authorization. */
  auth?: [string, string] | null;
  /**
   * `(user, password)` of HTTPDigestAuth: a 401 of the first host that asks for Digest is answered
   * once, as requests answers it.
   */
  digest?: [string, string] | null;
  /** Sent in one `Cookie` header. */
  cookies?: Record<string, string> | null;
  /** false: a redirect is not followed, but answered as it is (as Python's requests). */
  allow_redirects?: boolean | null;
  /**
   * false: the body is given as sent, and no Accept-Encoding is added (as urllib); else it is
   * decoded from its Content-Encoding (gzip, deflate, br), as requests decodes it.
   */
  decode?: boolean | null;
}

/** A response as `ces_requests` reads it: a redirect followed (`history`) without its body. */
export interface PyHttpHop {
  status_code: number;
  reason: string;
  headers: Record<string, string>;
  /** What its `Set-Cookie` headers set: name → value. */
  cookies: Record<string, string>;
  url: string;
}

export interface PyHttpResponse extends PyHttpHop {
  text: string;
  /** The body's bytes (base64), when they are not its text's UTF-8 (not text, another charset). */
  content_b64?: string;
  /** The redirects followed to it, first first (requests' `history`). */
  history?: PyHttpHop[];
}

export interface SafeHttpOptions {
  allowPrivateNetwork: boolean;
  /** Address policy; default: public unicast only, or everything with `allowPrivateNetwork`. */
  allowAddress?: (address: string) => boolean;
  timeoutMs: number;
  maxResponseBytes: number;
  maxRedirects?: number;
  /** Secret values filled into the request: they never follow a redirect to another host. */
  secrets?: readonly string[];
}

const ANY_ADDRESS = () => true;

/** One function a policy (the egress agents are kept by it). */
function policy(options: SafeHttpOptions): (address: string) => boolean {
  return options.allowAddress ?? (options.allowPrivateNetwork ? ANY_ADDRESS : isPublicAddress);
}

/** Through the egress proxy (EGRESS_PROXY) when one is set, the policy checking each host first. */
function agentOf(url: URL, options: SafeHttpOptions): HttpAgent | undefined {
  const allowed = policy(options);
  const agents = egressAgents(allowed, { check: lookupCheck(guardedLookup(allowed)) });
  return agents ? agents[url.protocol === 'https:' ? 'https' : 'http'] : undefined;
}

/** `url` with `query` added to its own, as requests adds `params`. */
function withParams(url: URL, query: string | null | undefined): URL {
  if (query) url.search = url.search ? `${url.search}&${query}` : query;
  return url;
}

/**
 * The HTTP side of `ces_requests`: private, loopback, link-local and metadata addresses are
 * refused unless allowed, checked on the address actually connected to (DNS-rebinding safe) and
 * again on every redirect. A redirect to another host gets no credential header and no header
 * holding a secret, and one that would send a body holding a secret there is not followed (the
 * code gets the redirect itself). At most `maxResponseBytes` of a body are read.
 */
export async function safeHttp(
  req: PyHttpRequest,
  options: SafeHttpOptions,
  signal: AbortSignal,
): Promise<PyHttpResponse> {
  const first = prepared(req);
  const timeoutMs = req.timeout
    ? Math.min(req.timeout * 1000, options.timeoutMs)
    : options.timeoutMs;
  const progress = { connected: false };
  const exchange = { options, signal: withTimeout(signal, timeoutMs), progress };
  try {
    return await following(first, req.allow_redirects !== false, exchange);
  } catch (error) {
    const timedOut = exchange.signal.aborted && !signal.aborted;
    throw failureOf(error, { timedOut, ...progress });
  }
}

interface Prepared {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  decode: boolean;
  digest?: [string, string];
}

/**
 * Headers sent unless the code names them, as requests sends its own: APIs that refuse a request
 * with no User-Agent (GitHub's, Wikimedia's) answer it.
 */
const DEFAULT_HEADERS = { 'User-Agent': `audio-agent-engine/${ENGINE_VERSION}`, Accept: '*/*' };

/** What goes on the wire for `req`: its URL with `params`, its headers, its body. */
function prepared(req: PyHttpRequest): Prepared {
  const parsed = URL.parse(req.url);
  if (!parsed) throw new HttpFailure(`invalid URL ${JSON.stringify(req.url)}`, 'invalid_url');
  const decode = req.decode !== false;
  const target = {
    url: withParams(parsed, req.params),
    method: req.method.toUpperCase(),
    decode,
    ...(req.digest && { digest: req.digest }),
  };
  // A header given None is not sent, as in requests (a default one neither).
  const named = new Set(Object.keys(req.headers ?? {}).map((name) => name.toLowerCase()));
  const defaults = decode
    ? { ...DEFAULT_HEADERS, 'Accept-Encoding': ACCEPTED_ENCODINGS }
    : DEFAULT_HEADERS;
  const headers = Object.fromEntries([
    ...Object.entries(defaults).filter(([name]) => !named.has(name.toLowerCase())),
    ...Object.entries(req.headers ?? {}).filter(
      ([, value]) => value !== null && value !== undefined,
    ),
  ]);
  if (req.auth) {
    const [user, password] = req.auth;
    headers['Authorization'] = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }
  const cookies = Object.entries(req.cookies ?? {}).map(([k, v]) => `${k}=${v}`);
  if (cookies.length > 0) headers['Cookie'] = cookies.join('; ');
  const typed = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  const withType = (type: string) => (typed ? headers : { ...headers, 'Content-Type': type });
  // As requests: `data` (a form, the body as it is, bytes) when it holds anything, else `json=`.
  const { data, json_text: json, form, data_b64: bytes } = req;
  if (form)
    return { ...target, headers: withType('application/x-www-form-urlencoded'), body: form };
  if (data) return { ...target, headers, body: data };
  if (bytes) return { ...target, headers, body: Buffer.from(bytes, 'base64') };
  if (json) return { ...target, headers: withType('application/json'), body: json };
  return { ...target, headers, body: undefined };
}

/** Sends `request`, following its redirects when `redirects` (see safeHttp). */
async function following(
  request: Prepared,
  redirects: boolean,
  {
    options,
    signal,
    progress,
  }: { options: SafeHttpOptions; signal: AbortSignal; progress: { connected: boolean } },
): Promise<PyHttpResponse> {
  let { url, method, body } = request;
  const { headers } = request;
  const secrets = (options.secrets ?? []).filter((s) => s !== '');
  const holdsSecret = (text: string | Buffer) => secrets.some((s) => text.includes(s));
  const history: PyHttpHop[] = [];
  /** Host → the cookies the redirects' responses set there: sent on to that host, as requests' jar. */
  const jar = new Map<string, Record<string, string>>();
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new HttpFailure(`unsupported URL scheme ${url.protocol}`, 'invalid_url');
    assertAllowedLiteral(url.hostname, policy(options));
    progress.connected = false;
    const sent = withCookies(headers, jar.get(url.hostname));
    let response = await send({ url, method, headers: sent, body }, options, signal, progress);
    // HTTPDigestAuth: the first host's challenge answered once (never another host's).
    const challenge =
      request.digest && response.statusCode === 401 && url.host === request.url.host
        ? digestChallenge(String(response.headers['www-authenticate'] ?? ''))
        : undefined;
    if (challenge) {
      response.resume();
      const [user, password] = request.digest!;
      const uri = `${url.pathname}${url.search}`;
      const authorization = digestAuthorization(challenge, { user, password, method, uri });
      const answered = { ...sent, Authorization: authorization };
      response = await send({ url, method, headers: answered, body }, options, signal, progress);
    }
    const status = response.statusCode ?? 0;
    let next;
    try {
      next = redirects ? redirectOf(status, response.headers.location, url, method) : undefined;
    } catch (error) {
      response.resume();
      throw new HttpFailure((error as Error).message, 'invalid_url');
    }
    if (next && !(next.away && next.keepsBody && body !== undefined && holdsSecret(body))) {
      response.resume();
      if (hop >= (options.maxRedirects ?? MAX_REDIRECTS))
        throw new HttpFailure(TOO_MANY_REDIRECTS, 'redirects');
      const passed = hopOf(response, url);
      history.push(passed);
      jar.set(url.hostname, { ...jar.get(url.hostname), ...passed.cookies });
      if (next.away)
        for (const [name, value] of Object.entries(headers))
          if (CREDENTIAL_HEADER.test(name) || holdsSecret(value)) delete headers[name];
      url = next.url;
      if (!next.keepsBody) {
        method = 'GET';
        body = undefined;
        for (const name of Object.keys(headers))
          if (name.toLowerCase() === 'content-type') delete headers[name];
      }
      continue;
    }
    const read = await readBody(response, options.maxResponseBytes, request.decode);
    return { ...hopOf(response, url), ...read, ...(history.length > 0 && { history }) };
  }
}

function send(
  { url, method, headers, body }: Omit<Prepared, 'decode'>,
  options: SafeHttpOptions,
  signal: AbortSignal,
  progress: { connected: boolean },
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method,
      headers:
        body === undefined
          ? headers
          : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
      lookup: guardedLookup(policy(options)),
      agent: agentOf(url, options),
      signal,
    });
    // A kept-alive socket is connected already; a new one once it has connected.
    request.on('socket', (socket) => {
      if (!socket.connecting) progress.connected = true;
      else socket.once('connect', () => (progress.connected = true));
    });
    request.on('response', resolve);
    request.on('error', reject);
    request.end(body);
  });
}
