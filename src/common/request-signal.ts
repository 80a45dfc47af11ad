import type { Transformer } from 'node:stream/web';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * `controller` (a plain one by default) aborted as the first of `outers` is, with its reason,
 * until `release` takes its listeners off them. Rather than `AbortSignal.any`: Node keeps a
 * composite signal for as long as it has listeners, and a library that never takes its own off
 * (the MCP SDK, from every request's signal) would keep it for ever, and all its listener holds.
 */
export function followSignals(
  outers: readonly (AbortSignal | undefined)[],
  controller = new AbortController(),
): { controller: AbortController; release: () => void } {
  const listening = outers.flatMap((outer) => {
    if (!outer) return [];
    if (outer.aborted) {
      controller.abort(outer.reason);
      return [];
    }
    const abort = () => controller.abort(outer.reason);
    outer.addEventListener('abort', abort, { once: true });
    return [() => outer.removeEventListener('abort', abort)];
  });
  return { controller, release: () => listening.forEach((off) => off()) };
}

/**
 * fetch giving each request a signal of its own, which follows `init.signal` until the request's
 * answer has been read. undici's fetch adds an abort listener to the signal it is given and
 * removes it only once the request is garbage-collected: a long-lived signal given to every
 * request (an MCP session's, for each of its calls) gathered them by the thousand between
 * collections, and Node printed a MaxListenersExceededWarning for each one past 1500. Here the
 * long-lived signal holds one listener per request in flight, taken off when its answer has been
 * read, its reading is cancelled (as the MCP SDK does with a 202's empty body: every notification
 * and every answer to the server's questions) or fails, or the request fails.
 */
export function followingSignal(fetchFn: Fetch): Fetch {
  return async (input, init) => {
    const outer = init?.signal;
    if (!outer || outer.aborted) return fetchFn(input, init);
    const { controller: own, release } = followSignals([outer]);
    let response: Response;
    try {
      response = await fetchFn(input, { ...init, signal: own.signal });
    } catch (error) {
      release();
      throw error;
    }
    if (!response.body) {
      release();
      return response;
    }
    const { status, statusText, headers } = response;
    // `cancel` (not in the types yet; Node runs it since 20.14) when the reader cancels the body
    // or its source fails.
    const ends: Transformer<Uint8Array, Uint8Array> & { cancel: () => void } = {
      flush: release,
      cancel: release,
    };
    const body = response.body.pipeThrough(new TransformStream(ends));
    return new Response(body, { status, statusText, headers });
  };
}
