import { request as httpRequest, STATUS_CODES, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  assertAllowedLiteral,
  BlockedAddressError,
  guardedLookup,
  isPublicAddress,
} from '../tools/address-guard.js';
import {
  CREDENTIAL_HEADER,
  MAX_REDIRECTS,
  redirectOf,
  TOO_MANY_REDIRECTS,
} from '../tools/redirects.js';
import { decodeBody } from '../tools/response-text.js';

export { isPublicAddress } from '../tools/address-guard.js';

/** What `ces_requests` asks for. */
export interface PyHttpRequest {
  method: string;
  url: string;
  params?: Record<string, unknown> | null;
  json?: unknown;
  data?: unknown;
  headers?: Record<string, string> | null;
  timeout?: number | null;
}

export interface PyHttpResponse {
  status_code: number;
  reason: string;
  text: string;
  headers: Record<string, string>;
  url: string;
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

function policy(options: SafeHttpOptions): (address: string) => boolean {
  return options.allowAddress ?? (options.allowPrivateNetwork ? () => true : isPublicAddress);
}

function withParams(url: URL, params: Record<string, unknown> | null | undefined): URL {
  for (const [key, value] of Object.entries(params ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null)
        url.searchParams.append(key, typeof item === 'string' ? item : JSON.stringify(item));
    }
  }
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
  let url = withParams(new URL(req.url), req.params);
  let method = req.method.toUpperCase();
  const headers: Record<string, string> = { ...(req.headers ?? {}) };
  let body: string | undefined;
  if (req.json !== undefined && req.json !== null) {
    body = JSON.stringify(req.json);
    headers['Content-Type'] ??= 'application/json';
  } else if (req.data !== undefined && req.data !== null) {
    body =
      typeof req.data === 'string'
        ? req.data
        : new URLSearchParams(req.data as Record<string, string>).toString();
    if (typeof req.data !== 'string')
      headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
  }
  const timeoutMs = req.timeout
    ? Math.min(req.timeout * 1000, options.timeoutMs)
    : options.timeoutMs;
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`unsupported URL scheme ${url.protocol}`);
    assertAllowedLiteral(url.hostname, policy(options));
    const response = await send(url, method, headers, body, options, deadline);
    const status = response.statusCode ?? 0;
    let next;
    try {
      next = redirectOf(status, response.headers.location, url, method);
    } catch (error) {
      response.resume();
      throw error;
    }
    const secrets = (options.secrets ?? []).filter((s) => s !== '');
    const holdsSecret = (text: string) => secrets.some((s) => text.includes(s));
    if (next && !(next.away && next.keepsBody && body !== undefined && holdsSecret(body))) {
      response.resume();
      if (hop >= (options.maxRedirects ?? MAX_REDIRECTS)) throw new Error(TOO_MANY_REDIRECTS);
      if (next.away)
        for (const [name, value] of Object.entries(headers))
          if (CREDENTIAL_HEADER.test(name) || holdsSecret(value)) delete headers[name];
      url = next.url;
      if (!next.keepsBody) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    const text = await readText(response, options.maxResponseBytes);
    const flat = Object.fromEntries(
      Object.entries(response.headers).map(([k, v]) => [
        k,
        Array.isArray(v) ? v.join(', ') : String(v ?? ''),
      ]),
    );
    return {
      status_code: status,
      reason: response.statusMessage || STATUS_CODES[status] || '',
      text,
      headers: flat,
      url: url.toString(),
    };
  }
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  options: SafeHttpOptions,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method,
      headers:
        body === undefined
          ? headers
          : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
      lookup: guardedLookup(policy(options)),
      signal,
    });
    request.on('response', resolve);
    request.on('error', (error) =>
      reject(
        signal.aborted && !(error instanceof BlockedAddressError) ? new Error('timed out') : error,
      ),
    );
    request.end(body);
  });
}

async function readText(response: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    const buf = chunk as Buffer;
    chunks.push(buf.subarray(0, Math.max(0, limit - size)));
    size += buf.length;
    if (size >= limit) {
      response.destroy();
      break;
    }
  }
  return decodeBody(Buffer.concat(chunks), response.headers['content-type']);
}
