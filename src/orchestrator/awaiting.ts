/** A call's wait for the client: its answer, none within the time allowed, or the turn's end. */
export type Waited<T> = { answer: T } | 'expired' | 'cancelled';

/**
 * Registers call `id` in `waiting` (a session's map, where the client's message for it settles
 * it) and waits for the answer until `timeoutMs` has passed or `signal` aborts. The entry is
 * removed whatever happens, so a late answer finds nothing to settle.
 */
export function awaitAnswer<T>(
  waiting: Map<string, (answer: T) => void>,
  id: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Waited<T>> {
  return awaitEntry(waiting, id, signal, timeoutMs, (settle) => settle);
}

/** The timers of the waits registered in each map, for `holdWaits` to start again. */
const timers = new WeakMap<Map<string, unknown>, Map<string, NodeJS.Timeout>>();

/**
 * Gives every wait registered in `waiting` its whole time again (the user asked it to hold on:
 * "one moment").
 */
export function holdWaits(waiting: Map<string, unknown>): void {
  for (const timer of timers.get(waiting)?.values() ?? []) timer.refresh();
}

/** `awaitAnswer`, the entry kept in `waiting` made by `entry` of what settles the wait. */
export function awaitEntry<T, E>(
  waiting: Map<string, E>,
  id: string,
  signal: AbortSignal,
  timeoutMs: number,
  entry: (settle: (answer: T) => void) => E,
): Promise<Waited<T>> {
  return new Promise((resolve) => {
    const done = (result: Waited<T>) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      waiting.delete(id);
      timers.get(waiting)?.delete(id);
      resolve(result);
    };
    const onAbort = () => done('cancelled');
    const timer = setTimeout(() => done('expired'), timeoutMs);
    let held = timers.get(waiting);
    if (!held) timers.set(waiting, (held = new Map<string, NodeJS.Timeout>()));
    held.set(id, timer);
    waiting.set(
      id,
      entry((answer) => done({ answer })),
    );
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
  });
}

/**
 * Settles the call `id` waiting in `waiting` with the client's `answer`; the error to send when
 * none waits (`what`: what the client gave).
 */
export function settleWaiting<T>(
  waiting: Map<string, (answer: T) => void>,
  id: string,
  answer: T,
  what: string,
): string | undefined {
  const settle = waiting.get(id);
  if (!settle) return `no call awaits ${what} with id ${JSON.stringify(id)}`;
  settle(answer);
  return undefined;
}
