import { isInteger, isSafeNumber, parse as parseLossless } from 'lossless-json';

/** `JSON.parse`, or `undefined` when the text is not JSON (JSON itself never parses to undefined). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A run of digits this long may be an integer no JavaScript number holds (2^53 has 16 digits). */
const LONG_DIGITS = /\d{16}/;

/** An integer literal beyond 2^53 as its digits (a string); any other number as JSON.parse reads it. */
export const exactNumber = (text: string): unknown =>
  isInteger(text) && !isSafeNumber(text) ? text : Number.parseFloat(text);

/**
 * `parseJson` for a tool call's arguments: an integer too long for a JavaScript number (an order
 * id of 19 digits written without quotes) is kept as its digits, a string, where `JSON.parse`
 * would change its last digits and send the tool another record's id. A parameter declared a
 * string gets it digit for digit; one declared an integer is refused (argument-check.ts).
 * Keys given twice keep the last value, as with `JSON.parse`.
 */
export function parseJsonExact(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return parseJson(text);
  try {
    return parseLossless(text, null, {
      parseNumber: exactNumber,
      onDuplicateKey: ({ newValue }) => newValue,
    });
  } catch {
    return parseJson(text);
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
