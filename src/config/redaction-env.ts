/**
 * What operators see of users' words, redacted (`REDACT_KINDS`, `REDACT_PATTERNS`,
 * `REDACT_PHONE_COUNTRY`). Pure: no Nest import.
 */
import type { CountryCode } from 'libphonenumber-js';
import {
  knownPhoneCountry,
  REDACT_KINDS,
  type RedactionSettings,
  type RedactKind,
} from '../common/redaction.js';
import { EnvError, present, type Raw } from './env-values.js';

function kinds(raw: Raw): RedactKind[] {
  const value = present(raw, 'REDACT_KINDS');
  if (value === undefined) return [];
  const named = value
    .split(',')
    .map((k) => k.trim().toLowerCase())
    .filter((k) => k !== '');
  const unknown = named.find((k) => !(REDACT_KINDS as readonly string[]).includes(k));
  if (unknown !== undefined)
    throw new EnvError(
      `REDACT_KINDS=${JSON.stringify(value)} is invalid: ${JSON.stringify(unknown)} is none of ${REDACT_KINDS.join(', ')} (comma-separated)`,
    );
  return [...new Set(named)] as RedactKind[];
}

function patterns(raw: Raw): RegExp[] {
  const value = present(raw, 'REDACT_PATTERNS');
  if (value === undefined) return [];
  let list: unknown;
  try {
    list = JSON.parse(value);
  } catch {
    list = undefined;
  }
  if (!Array.isArray(list) || list.some((p) => typeof p !== 'string' || p === ''))
    throw new EnvError(
      `REDACT_PATTERNS is invalid: expected a JSON array of regular expressions as strings, e.g. ["ACC-\\\\d{6}"]`,
    );
  return (list as string[]).map((source, i) => {
    try {
      return new RegExp(source, 'gu');
    } catch (error) {
      throw new EnvError(
        `REDACT_PATTERNS is invalid: its pattern #${i} ${JSON.stringify(source)} is not a regular expression: ${(error as Error).message}`,
      );
    }
  });
}

function phoneCountry(raw: Raw): CountryCode | undefined {
  const value = present(raw, 'REDACT_PHONE_COUNTRY')?.toUpperCase();
  if (value === undefined) return undefined;
  if (!knownPhoneCountry(value))
    throw new EnvError(
      `REDACT_PHONE_COUNTRY=${JSON.stringify(value)} is invalid: expected a two-letter country code (ISO 3166-1: US, IT, DE…)`,
    );
  return value;
}

export function parseRedaction(raw: Raw): RedactionSettings {
  const country = phoneCountry(raw);
  return { kinds: kinds(raw), patterns: patterns(raw), ...(country && { phoneCountry: country }) };
}
