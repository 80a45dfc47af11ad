/**
 * Redirects followed one hop at a time, each hop sent by `send` (which chooses anew, for each
 * server, whether the egress proxy carries it), as the engine's other clients follow them
 * (redirects.ts): a 303, and a 301 or 302 of a POST, become a GET without its body; a hop to
 * another host, or from HTTPS to HTTP, drops the credentials; at most 20, as `fetch`. Pure: no
 * Nest import.
 */
import { CREDENTIAL_HEADER, redirectOf } from './redirects.js';

const MAX_REDIRECTS = 20;
const BODY_HEADER = /^content-(type|length|encoding|language)$/i;

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
    let next;
    try {
      next = redirectOf(
        response.status,
        response.headers.get('location'),
        url,
        (request.method ?? 'GET').toUpperCase(),
      );
    } catch (error) {
      throw refused((error as Error).message);
    }
    if (!next) return response;
    await response.body?.cancel();
    if (hops === MAX_REDIRECTS) throw refused('redirect count exceeded');
    if (next.url.protocol !== 'http:' && next.url.protocol !== 'https:')
      throw refused(`redirected to a ${next.url.protocol} URL`);
    const drop = (name: string) =>
      (next.away && CREDENTIAL_HEADER.test(name)) || (!next.keepsBody && BODY_HEADER.test(name));
    const headers = [...new Headers(request.headers)].filter(([name]) => !drop(name));
    if (next.keepsBody && request.body instanceof ReadableStream)
      throw refused('redirected with a body that cannot be sent again');
    request = {
      ...request,
      headers,
      ...(!next.keepsBody && { method: 'GET', body: null }),
    };
    url = next.url;
  }
}
