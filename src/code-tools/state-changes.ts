/**
 * `context.state` of a session, changed by code tools. Calls of one round run in parallel, each on
 * the state as it was when it started; each call's changes are applied key by key to the state
 * as it is when the call ends (as ADK applies an event's state delta), so two calls that change
 * different keys both keep their change. A key both change keeps the last. Pure: no Nest import.
 */
export type State = Record<string, unknown>;

/** `current` with what a call changed from `before` to `after`: keys set, changed or deleted. */
export function applyStateChanges(current: State, before: State, after: State): State {
  const next: State = { ...current };
  for (const [key, value] of Object.entries(after))
    if (!Object.hasOwn(before, key) || JSON.stringify(before[key]) !== JSON.stringify(value))
      next[key] = value;
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) delete next[key];
  return next;
}

/** The most a session's `context.state` may hold, as JSON: it goes to every call and every save. */
export const STATE_MAX_CHARS = 1024 * 1024;

/**
 * The size over which a worker sends no state, only its size (`state_chars`): twice
 * STATE_MAX_CHARS. Python's compact JSON of a state may be a little longer than JavaScript's
 * (`1e-07` for `1e-7`), never twice as long: a state withheld is one stateTooLarge refuses
 * anyway, and no state of hundreds of MB crosses from the worker.
 */
export const STATE_WITHHELD_CHARS = 2 * STATE_MAX_CHARS;

/** Why `state` cannot be kept (its JSON, or a JSON of `state` characters, is over STATE_MAX_CHARS), or undefined. */
export function stateTooLarge(state: State | string | number): string | undefined {
  const size =
    typeof state === 'number'
      ? state
      : (typeof state === 'string' ? state : JSON.stringify(state)).length;
  if (size <= STATE_MAX_CHARS) return undefined;
  return `context.state would hold ${size} characters of JSON, over the ${STATE_MAX_CHARS} a session keeps: the changes were not kept`;
}
