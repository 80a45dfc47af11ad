type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * fetch giving each request a signal of its own, which follows `init.signal` until the request's
 * answer has been read. undici's fetch adds an abort listener to the signal it is given and
 * removes it only once the request is garbage-collected: a long-lived signal given to every
 * request (an MCP session's, for each of its calls) gathered them by the thousand between
 * collections, and Node printed a MaxListenersExceededWarning for each one past 1500. Here the
 * long-lived signal holds one listener per request in flight, taken off when its answer ends (or
 * the request fails); an answer whose reading is cancelled or fails keeps it until the signal is
 * aborted or collected.
 */
export function followingSignal(fetchFn: Fetch): Fetch {
  return async (input, init) => {
    const outer = init?.signal;
    if (!outer || outer.aborted) return fetchFn(input, init);
    const own = new AbortController();
    const abort = () => own.abort(outer.reason);
    outer.addEventListener('abort', abort, { once: true });
    const release = () => outer.removeEventListener('abort', abort);
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
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({ flush: release }),
    );
    return new Response(body, { status, statusText, headers });
  };
}
