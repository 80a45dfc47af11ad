/** `JSON.parse`, or `undefined` when the text is not JSON (JSON itself never parses to undefined). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Sets `key` on `obj` as its own property, as `JSON.parse` does, whatever the key: a model that
 * names an argument `__proto__` gets an argument of that name, not a new prototype for the
 * arguments object (which would hide the argument and lend the object inherited ones).
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  // Only `__proto__` is an accessor of Object.prototype; a plain assignment keeps the object fast.
  if (key === '__proto__')
    Object.defineProperty(obj, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else obj[key] = value;
}

/** `obj[key]` when `obj` has it as its own property (not `constructor`, `toString`, … inherited). */
export function ownValue<T>(obj: Record<string, T> | undefined, key: string): T | undefined {
  return obj !== undefined && Object.hasOwn(obj, key) ? obj[key] : undefined;
}
