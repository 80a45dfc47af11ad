import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Compares two secrets in constant time (for equal lengths). */
function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Whether `Authorization: Bearer <key>` carries `key`. */
export function bearerMatches(header: string | undefined, key: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  return match !== null && sameSecret(match[1]!.trim(), key);
}

/**
 * Whether a WebSocket upgrade request carries `key`: as `Authorization: Bearer <key>`, or, for
 * browsers (which cannot set headers on a WebSocket), as the `token` query parameter.
 */
export function upgradeCarriesKey(req: IncomingMessage, key: string): boolean {
  if (bearerMatches(req.headers.authorization, key)) return true;
  const token = new URL(req.url ?? '/', 'http://engine').searchParams.get('token');
  return token !== null && sameSecret(token, key);
}
