/**
 * One request to two servers, the second there for when the first fails or is slow: the second
 * is asked once the first fails, or once it has not answered within `afterMs` (a hedged
 * request); the first answer is taken and the other request aborted. Pure: no Nest import.
 */

/** The answer, and which server gave it. */
export interface Answered<T> {
  value: T;
  by: 'first' | 'second';
}

export interface HedgeOptions {
  /** The second is asked as well when the first has not answered by then; 0: only after a failure. */
  afterMs: number;
  /** Aborts both. */
  signal: AbortSignal;
  /** The first failed with `error` (not aborted because the second answered). */
  firstFailed?: (error: unknown) => void;
  /** The first had not answered within `afterMs`: the second is asked as well. */
  hedged?: () => void;
}

/**
 * `first`'s answer, or `second`'s: whichever succeeds first of those asked. Rejects with the last
 * failure when every one asked failed.
 */
export function hedge<T>(
  first: (signal: AbortSignal) => Promise<T>,
  second: (signal: AbortSignal) => Promise<T>,
  { afterMs, signal, firstFailed, hedged }: HedgeOptions,
): Promise<Answered<T>> {
  const controllers = [new AbortController(), new AbortController()] as const;
  const abortBoth = () => controllers.forEach((c) => c.abort(signal.reason));
  if (signal.aborted) abortBoth();
  else signal.addEventListener('abort', abortBoth, { once: true });
  return new Promise<Answered<T>>((resolve, reject) => {
    let settled = false;
    let asked = 1;
    let failed = 0;
    let timer: NodeJS.Timeout | undefined;
    const ask = (i: 0 | 1, request: (signal: AbortSignal) => Promise<T>) => {
      request(controllers[i].signal).then(
        (value) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          controllers[1 - i]!.abort();
          resolve({ value, by: i === 0 ? 'first' : 'second' });
        },
        // Any failure of a request is an Error (an abort's too: the signal's reason, or AbortError).
        (error: Error) => {
          if (settled) return;
          failed++;
          if (i === 0 && !signal.aborted) firstFailed?.(error);
          if (i === 0 && asked === 1 && !signal.aborted) return askSecond();
          if (failed < asked) return;
          settled = true;
          reject(error);
        },
      );
    };
    const askSecond = () => {
      clearTimeout(timer);
      if (asked === 2) return;
      asked = 2;
      ask(1, second);
    };
    ask(0, first);
    if (afterMs > 0)
      timer = setTimeout(() => {
        if (settled || asked === 2) return;
        hedged?.();
        askSecond();
      }, afterMs);
  }).finally(() => signal.removeEventListener('abort', abortBoth));
}
