/**
 * Secrets read from files (`NAME_FILE=/run/secrets/name`), as Docker and Kubernetes secrets, and
 * Vault's agent, hand them to a container: the file's content is the variable's value. For the
 * settings that hold secrets and every `TOOL_SECRET_*`. Pure but for reading the files: no Nest import.
 */
import { readFileSync } from 'node:fs';
import { EnvError, type Raw } from './env-values.js';

/**
 * The secrets read again from their files while the engine runs (SECRET_FILES_WATCH_SECS): those
 * the engine reads at each request, or (SESSION_STORE_URL's credentials) at each connection.
 */
export const ROTATING_SECRETS = [
  'LLM_API_KEY',
  'LLM_FALLBACK_API_KEY',
  'LLM_EXTRA_HEADERS',
  'LLM_FALLBACK_EXTRA_HEADERS',
  'ADMIN_API_KEY',
  'WS_API_KEY',
  'TTS_API_KEY',
  'STT_API_KEY',
  'STT_FALLBACK_API_KEY',
  'SESSION_WEBHOOK_SECRET',
  'TWILIO_AUTH_TOKEN',
  'TWILIO_WEBHOOKS_SHARED_KEY',
  // Its credentials, at each connection to Redis (its server is read at start-up only).
  'SESSION_STORE_URL',
  // At each export of spans.
  'OTEL_EXPORTER_OTLP_HEADERS',
  // Its credentials, at each connection to the proxy (its address is read at start-up only).
  'EGRESS_PROXY',
] as const;
export type RotatingSecret = (typeof ROTATING_SECRETS)[number];

/**
 * The settings that may hold a secret (a key, credentials in a URL, a header's value): the
 * rotating ones, and the passphrases of client certificates' keys.
 */
export const SECRET_SETTINGS = [
  ...ROTATING_SECRETS,
  'LLM_CLIENT_KEY_PASSPHRASE',
  'SPEECH_CLIENT_KEY_PASSPHRASE',
] as const;

const SECRET = new Set<string>(SECRET_SETTINGS);
const TOOL_SECRET = /^TOOL_SECRET_[A-Za-z0-9_]+$/;

/** The longest secret file read: a key or a URL, not a document. */
const MAX_BYTES = 64 * 1024;

/** A secret file's content, one trailing line break dropped; throws an EnvError naming `key`. */
function readSecret(key: string, path: string, read: (path: string) => Buffer): string {
  let content: Buffer;
  try {
    content = read(path.trim());
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as Error).message;
    throw new EnvError(`${key}=${JSON.stringify(path)} cannot be read (${code})`);
  }
  if (content.length > MAX_BYTES)
    throw new EnvError(
      `${key}=${JSON.stringify(path)} is no secret file: over ${MAX_BYTES / 1024} KiB`,
    );
  const value = content.toString('utf8').replace(/\r?\n$/, '');
  if (value === '') throw new EnvError(`${key}=${JSON.stringify(path)} is empty`);
  return value;
}

/** The secrets `raw` gives as files (`NAME_FILE`) of the variables `wanted` takes, by variable. */
function filesOf(raw: Raw, wanted: (name: string) => boolean): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [key, path] of Object.entries(raw)) {
    const name = key.slice(0, -'_FILE'.length);
    if (key.endsWith('_FILE') && wanted(name) && path?.trim()) files[name] = path.trim();
  }
  return files;
}

/** The files of the `TOOL_SECRET_*` that `raw` gives as files, by variable. */
export function toolSecretFiles(raw: Raw): Record<string, string> {
  return filesOf(raw, (name) => TOOL_SECRET.test(name));
}

/**
 * The `TOOL_SECRET_*` given as files, read again into `env` (a secret rotated in its file, as
 * Vault's agent does, is taken up when the tools are read again); throws an EnvError naming the
 * variable of a file that cannot be read.
 */
export function refreshToolSecrets(
  env: Record<string, string | undefined>,
  read: (path: string) => Buffer = (path) => readFileSync(path),
): void {
  for (const [name, path] of Object.entries(toolSecretFiles(env)))
    env[name] = readSecret(`${name}_FILE`, path, read);
}

/**
 * The values of the variables `raw` names files for (`NAME_FILE`), read from those files, one
 * trailing line break dropped. A variable set both ways, or a file that cannot be read, throws
 * an EnvError naming the variable (never the secret).
 */
export function secretFiles(
  raw: Raw,
  read: (path: string) => Buffer = (path) => readFileSync(path),
): Record<string, string> {
  const values: Record<string, string> = {};
  const files = filesOf(raw, (name) => SECRET.has(name) || TOOL_SECRET.test(name));
  for (const [name, path] of Object.entries(files)) {
    if (raw[name] !== undefined && raw[name] !== '')
      throw new EnvError(`${name} and ${name}_FILE are both set: give the secret one way`);
    values[name] = readSecret(`${name}_FILE`, path, read);
  }
  return values;
}

/** The files of the rotating secrets `env` gives as files, by variable. */
export function rotatingFiles(env: Raw): Record<string, string> {
  const rotating = new Set<string>(ROTATING_SECRETS);
  return filesOf(env, (name) => rotating.has(name));
}

/**
 * The rotating secrets `env` gives as files, read again: by variable, its value, or why it
 * cannot be read (the message names the variable, never the secret).
 */
export function rereadSecrets(
  env: Raw,
  read: (path: string) => Buffer = (path) => readFileSync(path),
): Partial<Record<RotatingSecret, { value: string } | { error: string }>> {
  const results: Partial<Record<RotatingSecret, { value: string } | { error: string }>> = {};
  for (const [name, path] of Object.entries(rotatingFiles(env))) {
    try {
      results[name as RotatingSecret] = { value: readSecret(`${name}_FILE`, path, read) };
    } catch (error) {
      results[name as RotatingSecret] = { error: (error as Error).message };
    }
  }
  return results;
}
