/**
 * What operators see of users' words, redacted (`REDACT_KINDS`, `REDACT_PATTERNS`): card numbers,
 * IBANs, e-mail addresses, phone numbers and the administrator's own patterns, in end-of-session
 * reports, `/api/sessions`' histories and debug logs. The model and the tools get the words as
 * said. Pure: no Nest import.
 */
import { createRequire } from 'node:module';
import type { CountryCode } from 'libphonenumber-js';

/**
 * The libraries, loaded when a redaction of their kind first runs (or a phone country is
 * checked), not at every process's start (libphonenumber's metadata: ~60 ms) for engines that
 * redact nothing.
 */
const load = createRequire(import.meta.url);
let phones: typeof import('libphonenumber-js') | undefined;
let ibans: typeof import('ibantools') | undefined;
const phoneLib = () => (phones ??= load('libphonenumber-js') as typeof import('libphonenumber-js'));
const ibanLib = () => (ibans ??= load('ibantools') as typeof import('ibantools'));

/** Whether `code` is a country whose phone numbers libphonenumber knows (`US`, `IT`). */
export const knownPhoneCountry = (code: string): code is CountryCode =>
  phoneLib().isSupportedCountry(code);

export const REDACT_KINDS = ['card', 'iban', 'email', 'phone'] as const;
export type RedactKind = (typeof REDACT_KINDS)[number];

export interface RedactionSettings {
  kinds: RedactKind[];
  /** The administrator's own (`REDACT_PATTERNS`), each match written `[redacted]`. */
  patterns: RegExp[];
  /** Phone numbers written without their country code are read as this country's. */
  phoneCountry?: CountryCode;
}

/** Text with what it must not show replaced; the identity when nothing is to be redacted. */
export type Redact = (text: string) => string;

/** Digits that pass the Luhn check, as every payment card number does. */
function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** 13 to 19 digits, maybe grouped by spaces or dashes, as a card number is written. */
const CARD = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g;
/** A country code, two check digits, then 11 to 30 letters or digits, maybe grouped by spaces. */
const IBAN = /\b[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}\b/g;
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;

/**
 * `match` with the IBAN it begins with redacted: the longest of its space-separated beginnings
 * that is a valid IBAN (the pattern runs on into the words after one: "…0130 00 please").
 */
function ibanIn(match: string): string {
  const groups = match.split(' ');
  for (let n = groups.length; n > 0; n--) {
    const candidate = groups.slice(0, n).join(' ');
    const { electronicFormatIBAN, isValidIBAN } = ibanLib();
    if (isValidIBAN(electronicFormatIBAN(candidate) ?? ''))
      return ['[iban]', ...groups.slice(n)].join(' ');
  }
  return match;
}

const REPLACERS: Record<RedactKind, (text: string, settings: RedactionSettings) => string> = {
  card: (text) =>
    text.replace(CARD, (match) => (luhn(match.replace(/\D/g, '')) ? '[card]' : match)),
  iban: (text) => text.replace(IBAN, ibanIn),
  email: (text) => text.replace(EMAIL, '[email]'),
  phone: (text, { phoneCountry }) => {
    const found = phoneLib().findPhoneNumbersInText(text, phoneCountry);
    let out = text;
    for (const { startsAt, endsAt } of found.reverse())
      out = `${out.slice(0, startsAt)}[phone]${out.slice(endsAt)}`;
    return out;
  },
};

/** The redaction `settings` ask for; undefined when they ask for none. */
export function redactor(settings: RedactionSettings): Redact | undefined {
  const { kinds, patterns } = settings;
  if (kinds.length === 0 && patterns.length === 0) return undefined;
  // Cards before phone numbers: a card's digits are no phone number to be found in part.
  const ordered = REDACT_KINDS.filter((kind) => kinds.includes(kind));
  return (text) => {
    let out = text;
    for (const kind of ordered) out = REPLACERS[kind](out, settings);
    for (const pattern of patterns) out = out.replace(pattern, '[redacted]');
    return out;
  };
}

interface Message {
  content?: unknown;
  tool_calls?: { function?: { arguments?: unknown } }[];
  [key: string]: unknown;
}

/**
 * A conversation's messages as operators may read them: each message's text and each call's
 * arguments redacted (copies: the history itself is the model's).
 */
export function redactedHistory<T>(history: readonly T[], redact: Redact | undefined): T[] {
  if (!redact) return [...history];
  return history.map((item) => {
    const message = item as Message;
    const copy: Message = { ...message };
    if (typeof message.content === 'string') copy.content = redact(message.content);
    if (Array.isArray(message.tool_calls))
      copy.tool_calls = message.tool_calls.map((call) =>
        typeof call.function?.arguments === 'string'
          ? { ...call, function: { ...call.function, arguments: redact(call.function.arguments) } }
          : call,
      );
    return copy as T;
  });
}
