/**
 * What a chain of redirects carries for `ces_requests`: each response as the code reads it
 * (requests' `history`), and the cookies set along it, sent on as requests' jar sends them. Pure:
 * no Nest import.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import { cookiesSet } from './response-reading.js';
import type { PyHttpHop } from './safe-http.js';

/** What `response`, from `url`, answered, but its body. */
export function hopOf(response: IncomingMessage, url: URL): PyHttpHop {
  const status = response.statusCode ?? 0;
  return {
    status_code: status,
    reason: response.statusMessage || STATUS_CODES[status] || '',
    headers: Object.fromEntries(
      Object.entries(response.headers).map(([k, v]) => [
        k,
        Array.isArray(v) ? v.join(', ') : String(v ?? ''),
      ]),
    ),
    cookies: cookiesSet(response.headers['set-cookie'] ?? []),
    url: url.toString(),
  };
}

/** `headers` with `cookies` in their Cookie header, over those of the same name there. */
export function withCookies(
  headers: Record<string, string>,
  cookies: Record<string, string> | undefined,
): Record<string, string> {
  if (!cookies || Object.keys(cookies).length === 0) return headers;
  const name = Object.keys(headers).find((n) => n.toLowerCase() === 'cookie');
  const own = (name ? headers[name]! : '')
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '')
    .map((pair) => [pair.split('=', 1)[0]!, pair] as const);
  const merged = new Map(own);
  for (const [key, value] of Object.entries(cookies)) merged.set(key, `${key}=${value}`);
  const rest = Object.fromEntries(Object.entries(headers).filter(([n]) => n !== name));
  return { ...rest, Cookie: [...merged.values()].join('; ') };
}
