/**
 * What the engine makes of a server's URL as configured: an endpoint under it (its query kept), and
 * its user and password (`https://user:password@host/`), sent as Basic credentials, never shown.
 * Pure: no Nest import.
 */

/**
 * The endpoint `path` under `base` (an LLM_BASE_URL, a speech server's URL), before its query: a
 * gateway's `https://gw.corp/v1?api-version=2024-10-21` gives `…/v1/chat/completions?api-version=…`,
 * not a path after the query.
 */
export function endpointOf(base: string, path: string): string {
  const query = base.search(/[?#]/);
  if (query === -1) return `${base.replace(/\/+$/, '')}${path}`;
  return `${base.slice(0, query).replace(/\/+$/, '')}${path}${base.slice(query)}`;
}

/** Basic credentials of `url`'s user and password, as its server (or proxy) is sent them; undefined for none. */
export function basicOf(url: URL): string | undefined {
  if (!url.username && !url.password) return undefined;
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return `Basic ${Buffer.from(pair).toString('base64')}`;
}

/** `url` without its user and password, to name it in a log line or a message. */
export function shownUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (!parsed.username && !parsed.password) return url;
  parsed.username = parsed.password = '';
  // URL adds a slash to a bare origin: the value as written has none past its path.
  return url.endsWith('/') ? parsed.href : parsed.href.replace(/\/$/, '');
}

/**
 * `url` without its credentials, and `init` with them as its Authorization header (unless it has
 * one: an API key's wins, as with Node's own requests). `fetch` refuses a URL that holds them,
 * quoting it whole, password and all.
 */
export function credentialsAsHeader(
  url: URL,
  init: RequestInit | undefined,
): { url: URL; init: RequestInit | undefined } {
  const basic = basicOf(url);
  if (!basic) return { url, init };
  const bare = new URL(url);
  bare.username = bare.password = '';
  const headers = new Headers(init?.headers);
  if (!headers.has('authorization')) headers.set('authorization', basic);
  return { url: bare, init: { ...init, headers } };
}
