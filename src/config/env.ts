/**
 * Every environment variable the engine reads, parsed and validated in one place.
 * Pure: no Nest import. A bad value throws an EnvError naming the variable and what it accepts.
 */
export class EnvError extends Error {}

export const DEFAULT_SYSTEM_PROMPT =
  'You are a helpful voice assistant. Answer briefly and naturally, in plain sentences ' +
  'without markdown, lists or emoji, because your answer is read aloud.';

export interface Env {
  port: number;
  logLevel: 'error' | 'warn' | 'log' | 'debug' | 'verbose';
  llm: {
    enabled: boolean;
    baseUrl: string;
    model: string;
    apiKey: string;
    systemPrompt: string;
    timeoutSecs: number;
    extraBody: Record<string, unknown>;
    maxHistoryMessages: number;
  };
  tools: {
    /** Effective switch at boot (seed §2). */
    enabled: boolean;
    /** `LLM_TOOLS_ENABLED` as set, or undefined for "auto". */
    explicit: boolean | undefined;
    file: string;
    maxIterations: number;
    timeoutSecs: number;
    resultMaxChars: number;
    maxResponseBytes: number;
  };
  ws: { maxMessageBytes: number; pingIntervalSecs: number };
}

type Raw = Record<string, string | undefined>;

function present(raw: Raw, name: string): string | undefined {
  const value = raw[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function int(raw: Raw, name: string, def: number, min: number, max: number): number {
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

function num(raw: Raw, name: string, def: number, min: number, max: number): number {
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

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];

function bool(raw: Raw, name: string): boolean | undefined {
  const value = present(raw, name);
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  if (TRUE.includes(lower)) return true;
  if (FALSE.includes(lower)) return false;
  throw new EnvError(
    `${name}=${JSON.stringify(value)} is invalid: expected one of ${[...TRUE, ...FALSE].join(', ')}`,
  );
}

function httpUrl(raw: Raw, name: string, def: string): string {
  const value = present(raw, name) ?? def;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new EnvError(
      `${name}=${JSON.stringify(value)} is invalid: expected an absolute http:// or https:// URL`,
    );
  }
  return value.replace(/\/+$/, '');
}

function jsonObject(raw: Raw, name: string): Record<string, unknown> {
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

function oneOf<T extends string>(raw: Raw, name: string, def: T, allowed: readonly T[]): T {
  const value = present(raw, name);
  if (value === undefined) return def;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new EnvError(
      `${name}=${JSON.stringify(value)} is invalid: expected one of ${allowed.join(', ')}`,
    );
  }
  return value as T;
}

const MiB = 1024 * 1024;

export function parseEnv(raw: Raw): Env {
  const toolsFile = present(raw, 'LLM_TOOLS_FILE') ?? '';
  return {
    port: int(raw, 'PORT', 8787, 0, 65535),
    logLevel: oneOf(raw, 'LOG_LEVEL', 'log', ['error', 'warn', 'log', 'debug', 'verbose'] as const),
    llm: {
      enabled: bool(raw, 'LLM_ENABLED') ?? true,
      baseUrl: httpUrl(raw, 'LLM_BASE_URL', 'http://localhost:8000/v1'),
      model: present(raw, 'LLM_MODEL') ?? '',
      apiKey: present(raw, 'LLM_API_KEY') ?? '',
      systemPrompt: raw['LLM_SYSTEM_PROMPT'] ?? DEFAULT_SYSTEM_PROMPT,
      timeoutSecs: num(raw, 'LLM_TIMEOUT_SECS', 60, 0, 3600),
      extraBody: jsonObject(raw, 'LLM_EXTRA_BODY'),
      maxHistoryMessages: int(raw, 'LLM_MAX_HISTORY_MESSAGES', 50, 2, 10000),
    },
    tools: {
      enabled: bool(raw, 'LLM_TOOLS_ENABLED') ?? toolsFile !== '',
      explicit: bool(raw, 'LLM_TOOLS_ENABLED'),
      file: toolsFile,
      maxIterations: int(raw, 'LLM_TOOL_MAX_ITERATIONS', 4, 0, 100),
      timeoutSecs: num(raw, 'LLM_TOOL_TIMEOUT_SECS', 15, 0, 3600),
      resultMaxChars: int(raw, 'LLM_TOOL_RESULT_MAX_CHARS', 2000, 1, 10_000_000),
      maxResponseBytes: int(raw, 'LLM_TOOL_MAX_RESPONSE_BYTES', MiB, 1, 1024 * MiB),
    },
    ws: {
      maxMessageBytes: int(raw, 'WS_MAX_MESSAGE_BYTES', MiB, 64, 64 * MiB),
      pingIntervalSecs: int(raw, 'WS_PING_INTERVAL_SECS', 30, 0, 3600),
    },
  };
}
