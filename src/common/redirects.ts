import { excerpt } from './http-text.js';

/** Redirects followed by the engine itself: where they lead, and what a request keeps on the way. */

/** At most this many redirects are followed for one request. */
export const MAX_REDIRECTS = 3;
export const TOO_MANY_REDIRECTS = `too many redirects (at most ${MAX_REDIRECTS} are followed)`;

/** Headers of credentials, which a redirect to another host does not get (as Python's requests). */
export const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|cookie)$/i;

/** What a redirect whose Location is no URL is said to be. */
export const invalidRedirect = (location: string) =>
  `the server redirected to an invalid URL (${excerpt(location)})`;

export interface RedirectStep {
  /** Where the request goes next. */
  url: URL;
  /** 307 and 308 send the same method and body again; 303, and 301 or 302 after a POST, a GET without a body. */
  keepsBody: boolean;
  /** It leaves the host the request named, or goes from HTTPS to plain HTTP. */
  away: boolean;
}

/**
 * The redirect an answer (`status`, its `Location`) to `method` on `from` makes, if it is one;
 * throws, saying so, when its Location is no URL.
 */
export function redirectOf(
  status: number,
  location: string | null | undefined,
  from: URL,
  method: string,
): RedirectStep | undefined {
  if (![301, 302, 303, 307, 308].includes(status) || !location) return undefined;
  const url = URL.parse(location, from.href);
  if (!url) throw new Error(invalidRedirect(location));
  const keepsBody = !(status === 303 || ((status === 301 || status === 302) && method === 'POST'));
  const away =
    from.hostname !== url.hostname || (from.protocol === 'https:' && url.protocol === 'http:');
  return { url, keepsBody, away };
}
