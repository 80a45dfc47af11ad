/**
 * Readers of single environment variables: each returns the parsed value or its default, or
 * throws an EnvError naming the variable and what it accepts. Pure: no Nest import.
 */

import { timeZoneNamed } from '../common/clock.js';
import { parseOrigins } from '../common/origins.js';
import { parseJson } from '../llm/parsing/json.js';
import { HTTP_TOKEN, headerValueFault } from '../common/http-fields.js';
import { isPhraseList, type Phrases } from '../common/phrases.js';
import { LANGUAGE_CODE } from '../common/language-code.js';

export class EnvError extends Error {}

export type Raw = Record<string, string | undefined>;

export function present(raw: Raw, name: string): string | undefined {
  const value = raw[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function int(raw: Raw, name: string, def: number, min: number, max: number): number {
  const value = present(raw, name);
  if (value === undefined) return def;
  const n = /^[+-]?\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new EnvError(
      `${name}=${JSON.stringify(value)} is invalid: expected an integer from ${min} to ${max}`,
    );
  }
  return n;
}

export function num(raw: Raw, name: string, def: number, min: number, max: number): number {
  const value = present(raw, name);
  if (value === undefined) return def;
  const n = /^[+-]?(\d+\.?\d*|\.\d+)$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n <= min || n > max) {
    throw new EnvError(
      `${name}=${JSON.stringify(value)} is invalid: expected a number of seconds greater than ${min} and at most ${max}`,
    );
  }
  return n;
}

/** Seconds as `num` takes them, or 0 (the default) for "never". */
export function secondsOrNever(raw: Raw, name: string, max: number): number {
  const value = present(raw, name);
  if (value !== undefined && /^(0+\.?0*|\.0+)$/.test(value)) return 0;
  try {
    return num(raw, name, 0, 0, max);
  } catch {
    throw new EnvError(
      `${name}=${JSON.stringify(value)} is invalid: expected 0 (never) or a number of seconds up to ${max}`,
    );
  }
}

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];
/** Whether `value` is one of the words a boolean setting takes (`true`, `off`, …). */
export const isBooleanWord = (value: string) =>
  TRUE.includes(value.toLowerCase()) || FALSE.includes(value.toLowerCase());

export function bool(raw: Raw, name: string): boolean | undefined {
  const value = present(raw, name);
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  if (TRUE.includes(lower)) return true;
  if (FALSE.includes(lower)) return false;
  throw new EnvError(
    `${name}=${JSON.stringify(value)} is invalid: expected one of ${[...TRUE, ...FALSE].join(', ')}`,
  );
}

/** `value` as an absolute URL; undefined when it is none. */
export function absoluteUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/**
 * An http(s) URL without its trailing slashes. `endpoints` are paths the engine appends to it: a
 * value already ending in one (a whole endpoint pasted for its base) is refused, saying so.
 */
export function httpUrl(raw: Raw, name: string, def: string, endpoints: string[] = []): string {
  const value = present(raw, name) ?? def;
  if (value === '') return '';
  const url = absoluteUrl(value);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new EnvError(
      `${name}=${JSON.stringify(value)} is invalid: expected an absolute http:// or https:// URL`,
    );
  }
  const base = value.replace(/\/+$/, '');
  const path = url.pathname.replace(/\/+$/, '');
  const endpoint = endpoints.find((p) => path.endsWith(p));
  if (endpoint)
    throw new EnvError(
      `${name}=${JSON.stringify(value)} is invalid: give the base URL, without ${endpoint} (the engine adds it), e.g. ${JSON.stringify(url.origin + path.slice(0, -endpoint.length))}`,
    );
  return base;
}

/** A list of web origins (see common/origins.ts); empty when unset. */
export function originList(raw: Raw, name: string): string[] {
  try {
    return parseOrigins(present(raw, name) ?? '');
  } catch (error) {
    throw new EnvError(`${name} is invalid: ${(error as Error).message}`);
  }
}

export function jsonObject(raw: Raw, name: string): Record<string, unknown> {
  const value = present(raw, name);
  if (value === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new EnvError(
      `${name} is invalid: expected a JSON object, e.g. {"chat_template_kwargs":{"enable_thinking":false}}`,
    );
  }
  return parsed as Record<string, unknown>;
}

/** Headers the HTTP client sets itself, from the request it sends. */
const CLIENT_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

/**
 * A JSON object of HTTP headers (name → string value), e.g. a gateway's key. Values may be
 * secrets: an error names the variable and the header, never the value.
 */
export function headerObject(raw: Raw, name: string): Record<string, string> {
  if (present(raw, name) === undefined) return {};
  let parsed: Record<string, unknown>;
  try {
    parsed = jsonObject(raw, name);
  } catch {
    throw new EnvError(
      `${name} is invalid: expected a JSON object of header names and string values, e.g. {"api-key":"…"}`,
    );
  }
  for (const [header, value] of Object.entries(parsed)) {
    if (!HTTP_TOKEN.test(header))
      throw new EnvError(`${name} is invalid: ${JSON.stringify(header)} is not a header name`);
    if (CLIENT_HEADERS.has(header.toLowerCase()))
      throw new EnvError(`${name} is invalid: ${header} is set by the engine itself`);
    if (typeof value !== 'string')
      throw new EnvError(`${name} is invalid: the value of ${header} must be a string`);
    const fault = headerValueFault(value);
    if (fault) throw new EnvError(`${name} is invalid: the value of ${header} holds ${fault}`);
  }
  return parsed as Record<string, string>;
}

export function oneOf<T extends string>(raw: Raw, name: string, def: T, allowed: readonly T[]): T {
  const value = present(raw, name);
  if (value === undefined) return def;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new EnvError(
      `${name}=${JSON.stringify(value)} is invalid: expected one of ${allowed.join(', ')}`,
    );
  }
  return value as T;
}

/** An IANA time zone (`Europe/Rome`, `UTC`), in its canonical spelling. */
export function timeZone(raw: Raw, name: string, def: string): string {
  const value = present(raw, name);
  if (value === undefined) return def;
  const zone = timeZoneNamed(value);
  if (!zone)
    throw new EnvError(
      `${name}=${JSON.stringify(value)} is invalid: expected an IANA time zone such as Europe/Rome, America/New_York or UTC`,
    );
  return zone;
}

/** A Redis URL (`redis://` or `rediss://`, credentials allowed), or '' when unset. */
export function redisUrl(raw: Raw, name: string): string {
  const value = present(raw, name) ?? '';
  if (value === '') return '';
  let protocol: string;
  try {
    protocol = new URL(value).protocol;
  } catch {
    protocol = '';
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    // The value may hold a password: it is not repeated in the message.
    throw new EnvError(
      `${name} is invalid: expected a redis:// or rediss:// URL, e.g. redis://redis:6379/0`,
    );
  }
  return value;
}

/** A comma-separated list of phrases; set but empty, the empty list (the feature is off). */
export function phraseList(raw: Raw, name: string, def: readonly string[]): string[] {
  const value = raw[name];
  if (value === undefined) return [...def];
  const phrases = value
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const wordless = phrases.find((p) => !/[\p{L}\p{N}]/u.test(p));
  if (wordless !== undefined)
    throw new EnvError(
      `${name}: ${JSON.stringify(wordless)} has no letter or digit; expected comma-separated phrases`,
    );
  return phrases;
}

/**
 * A phrase per language: plain text (for every language, key `*`), a JSON array of phrases said
 * in turn (for every language), or a JSON object of language codes and a phrase or such an array
 * each (`{"en":["One moment.","Let me check."],"it":"Un momento."}`); set but empty, none at all.
 */
export function phrasePerLanguage(raw: Raw, name: string, def: Phrases): Phrases {
  const value = raw[name]?.trim();
  if (value === undefined) return { ...def };
  if (value === '') return {};
  // A JSON array is a list (a phrase that only begins with `[`, "[sighs] One moment.", is text).
  const list = value.startsWith('[') ? parseJson(value) : undefined;
  if (Array.isArray(list)) {
    if (isPhraseList(list)) return { '*': list };
    throw new EnvError(
      `${name} is invalid: expected a JSON array of one or more phrases (non-empty strings), e.g. ["One moment.","Let me check."]`,
    );
  }
  if (!value.startsWith('{')) return { '*': value };
  const parsed = parseJson(value);
  const entries =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? Object.entries(parsed)
      : undefined;
  const bad = entries?.find(
    ([code, phrase]) =>
      !LANGUAGE_CODE.test(code) || (typeof phrase !== 'string' && !isPhraseList(phrase)),
  );
  if (!entries || bad)
    throw new EnvError(
      `${name} is invalid: expected a phrase, a JSON array of phrases said in turn, or a JSON object of language codes and a phrase or an array of phrases each, e.g. {"en":["One moment.","Let me check."],"it":"Un momento."}${bad ? ` (not ${JSON.stringify(bad[0])})` : ''}`,
    );
  return Object.fromEntries(
    entries.map(([code, phrase]) => [code.toLowerCase(), phrase as string | string[]]),
  );
}

/** One key of a phone's keypad (`0`–`9`, `*`, `#`, `A`–`D`), or '' for none. */
export function phoneKey(raw: Raw, name: string, def: string): string {
  const value = raw[name]?.trim() ?? def;
  if (!/^[0-9*#A-D]?$/.test(value))
    throw new EnvError(
      `${name}=${JSON.stringify(value)} is invalid: expected one key of a phone's keypad (0-9, *, #, A-D), or empty for none`,
    );
  return value;
}

/** The phone keys that answer a call awaiting approval, and the one that has it asked again. */
export interface ConfirmKeys {
  yes: string;
  no: string;
  repeat: string;
}

/** TOOL_CONFIRM_KEY_YES, _NO and _REPEAT: three keys, none of them another's. */
export function confirmKeys(raw: Raw): ConfirmKeys {
  const names = ['TOOL_CONFIRM_KEY_YES', 'TOOL_CONFIRM_KEY_NO', 'TOOL_CONFIRM_KEY_REPEAT'];
  const keys = ['1', '2', '*'].map((key, i) => phoneKey(raw, names[i]!, key));
  keys.forEach((key, i) => {
    const first = keys.indexOf(key);
    if (key !== '' && first < i)
      throw new EnvError(
        `${names[i]}=${JSON.stringify(key)} is invalid: it is ${names[first]}'s key too; expected another key, or empty for none`,
      );
  });
  const [yes = '', no = '', repeat = ''] = keys;
  return { yes, no, repeat };
}
