/**
 * Redirects followed one hop at a time, each hop sent by `send` (which chooses anew, for each
 * server, whether the egress proxy carries it), as `fetch` follows them: at most 20; a 303, and a
 * 301 or 302 of a POST, become a GET without its body; a hop to another origin drops the
 * credentials (Authorization, Cookie, Proxy-Authorization). Pure: no Nest import.
 */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language'];
const CREDENTIALS = ['authorization', 'cookie', 'proxy-authorization'];

export type OneHop = (url: URL, init: RequestInit) => Promise<Response>;

/** fetch's error for a redirect it does not follow, with why. */
const refused = (why: string) => new TypeError('fetch failed', { cause: new Error(why) });

export async function followRedirects(
  send: OneHop,
  url: URL,
  init: RequestInit = {},
): Promise<Response> {
  // The caller reads redirects itself (`manual`), or refuses them (`error`): one hop, as asked.
  if (init.redirect !== undefined && init.redirect !== 'follow') return send(url, init);
  let request: RequestInit = { ...init, redirect: 'manual' };
  for (let hops = 0; ; hops++) {
    const response = await send(url, request);
    const location = response.headers.get('location');
    if (!REDIRECTS.has(response.status) || location === null) return response;
    await response.body?.cancel();
    if (hops === MAX_REDIRECTS) throw refused('redirect count exceeded');
    const next = new URL(location, url);
    if (next.protocol !== 'http:' && next.protocol !== 'https:')
      throw refused(`redirected to a ${next.protocol} URL`);
    const headers = new Headers(request.headers);
    const method = (request.method ?? 'GET').toUpperCase();
    const toGet =
      response.status === 303
        ? method !== 'GET' && method !== 'HEAD'
        : response.status <= 302 && method === 'POST';
    if (toGet) {
      for (const name of BODY_HEADERS) headers.delete(name);
      request = { ...request, method: 'GET', body: null };
    } else if (request.body instanceof ReadableStream)
      throw refused('redirected with a body that cannot be sent again');
    if (next.origin !== url.origin) for (const name of CREDENTIALS) headers.delete(name);
    request = { ...request, headers };
    url = next;
  }
}
