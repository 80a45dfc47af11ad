import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Compares two secrets in constant time (for equal lengths). */
function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Whether `given` is one of the keys of `keys`: one per line, so that a new key and the one it
 * replaces are both taken while clients move to the new one (no header value holds a line break).
 */
export function keyMatches(given: string, keys: string): boolean {
  let found = false;
  for (const key of keys.split(/\r?\n/)) {
    const trimmed = key.trim();
    // Every key is compared, so that the time taken does not tell which one matched.
    if (trimmed !== '' && sameSecret(given, trimmed)) found = true;
  }
  return found;
}

/** The key a client of the engine shows: the first of `keys` (a rotation's new one); '' for none. */
export function currentKey(keys: string): string {
  return (
    keys
      .split(/\r?\n/)
      .find((key) => key.trim() !== '')
      ?.trim() ?? ''
  );
}

/** Whether `Authorization: Bearer <key>` carries one of `keys` (see keyMatches). */
export function bearerMatches(header: string | undefined, keys: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  return match !== null && keyMatches(match[1]!.trim(), keys);
}

/**
 * Whether a WebSocket upgrade request carries one of `keys`: as `Authorization: Bearer <key>`, or, for
 * browsers (which cannot set headers on a WebSocket), as the `token` query parameter.
 */
export function upgradeCarriesKey(req: IncomingMessage, keys: string): boolean {
  if (bearerMatches(req.headers.authorization, keys)) return true;
  const token = new URL(req.url ?? '/', 'http://engine').searchParams.get('token');
  return token !== null && keyMatches(token, keys);
}
