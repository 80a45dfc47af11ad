/** The LLM server's settings (LLM_*): what the engine sends, where, and what it keeps of a turn. */
import { CLOCK_MODES, type ClockMode } from '../common/clock.js';
import type { LoadedClientTls } from '../common/client-tls.js';
import { llmClientTls } from './client-tls-env.js';
import { DEFAULT_SYSTEM_PROMPT } from './env-defaults.js';
import {
  bool,
  EnvError,
  headerObject,
  httpUrl,
  int,
  jsonObject,
  num,
  oneOf,
  present,
  type Raw,
} from './env-values.js';

export interface LlmEnv {
  enabled: boolean;
  baseUrl: string;
  model: string;
  /** Models a session may choose with `session.update` (LLM_MODELS); none when empty. */
  models: string[];
  apiKey: string;
  systemPrompt: string;
  /** Requests to the LLM server, HTTP and MCP tools carry a W3C `traceparent` (TRACE_CONTEXT). */
  traceContext: boolean;
  timeoutSecs: number;
  /** Transient failures retried before anything of the answer was emitted. */
  retries: number;
  retryBackoffMs: number;
  extraBody: Record<string, unknown>;
  /** Sent with every request to the server (after, and over, the engine's own headers). */
  extraHeaders: Record<string, string>;
  /** The reply's text begins inside reasoning that has no opening `<think>` (see the README). */
  untaggedReasoning: boolean;
  /** A round's reasoning is sent back with its calls while the turn lasts (LLM_KEEP_REASONING). */
  keepReasoning: 'turn' | 'off';
  /** Control tokens in users' and tools' messages are broken (LLM_DEFUSE_SPECIAL_TOKENS). */
  defuseSpecialTokens: boolean;
  /**
   * `off`: the server's tool parser is not used (every request with `tool_choice: "none"`, the
   * calls read from the text), for a server whose parser does not match the model.
   */
  serverToolParser: 'auto' | 'off';
  maxHistoryMessages: number;
  /** Turns the bounded history drops are summarised by the model (LLM_HISTORY_SUMMARY). */
  historySummary: boolean;
  /** What the system message tells the model of the current moment (LLM_CLOCK). */
  clock: ClockMode;
  /**
   * The client certificate shown to LLM_BASE_URL's server when it asks for one (mutual TLS);
   * replaced by a renewed one read from its files (SECRET_FILES_WATCH_SECS).
   */
  clientTls: LoadedClientTls | undefined;
  /** A second server for requests the first fails before answering; undefined when unset. */
  fallback?: {
    baseUrl: string;
    model: string;
    apiKey: string;
    extraBody: Record<string, unknown>;
    extraHeaders: Record<string, string>;
    /** A request the first server has not begun to answer by then is sent here as well; 0: never. */
    afterMs: number;
  };
}

/** The endpoint an LLM server's base URL is often given with by mistake. */
const LLM_PATHS = ['/chat/completions'];

/** `LLM_MODELS`: comma-separated model names (vLLM's served models and LoRA adapters). */
function modelList(raw: Raw): string[] {
  const names = (present(raw, 'LLM_MODELS') ?? '').split(',').map((n) => n.trim());
  const models = names.filter((n) => n !== '');
  const bad = models.find((n) => n.length > 200 || /\s/.test(n));
  if (bad !== undefined)
    throw new EnvError(
      `LLM_MODELS is invalid: ${JSON.stringify(bad.slice(0, 50))} is no model name (no spaces, at most 200 characters)`,
    );
  return [...new Set(models)];
}

/** `LLM_FALLBACK_*`: a second OpenAI-compatible server, with its own model, key, body and headers. */
function fallbackLlm(raw: Raw): { fallback?: LlmEnv['fallback'] } {
  const baseUrl = httpUrl(raw, 'LLM_FALLBACK_BASE_URL', '', LLM_PATHS);
  const afterMs = int(raw, 'LLM_FALLBACK_AFTER_MS', 0, 0, 60_000);
  if (!baseUrl && afterMs > 0)
    throw new EnvError(
      'LLM_FALLBACK_AFTER_MS is set but LLM_FALLBACK_BASE_URL is not: there is no second server to ask',
    );
  if (!baseUrl) return {};
  return {
    fallback: {
      baseUrl,
      model: present(raw, 'LLM_FALLBACK_MODEL') ?? '',
      apiKey: present(raw, 'LLM_FALLBACK_API_KEY') ?? '',
      extraBody: jsonObject(raw, 'LLM_FALLBACK_EXTRA_BODY'),
      extraHeaders: headerObject(raw, 'LLM_FALLBACK_EXTRA_HEADERS'),
      afterMs,
    },
  };
}

export function parseLlm(raw: Raw): LlmEnv {
  return {
    enabled: bool(raw, 'LLM_ENABLED') ?? true,
    baseUrl: httpUrl(raw, 'LLM_BASE_URL', 'http://localhost:8000/v1', LLM_PATHS),
    model: present(raw, 'LLM_MODEL') ?? '',
    models: modelList(raw),
    apiKey: present(raw, 'LLM_API_KEY') ?? '',
    systemPrompt: raw['LLM_SYSTEM_PROMPT'] ?? DEFAULT_SYSTEM_PROMPT,
    traceContext: bool(raw, 'TRACE_CONTEXT') ?? true,
    timeoutSecs: num(raw, 'LLM_TIMEOUT_SECS', 60, 0, 3600),
    retries: int(raw, 'LLM_RETRIES', 2, 0, 10),
    retryBackoffMs: int(raw, 'LLM_RETRY_BACKOFF_MS', 500, 1, 60_000),
    extraBody: jsonObject(raw, 'LLM_EXTRA_BODY'),
    extraHeaders: headerObject(raw, 'LLM_EXTRA_HEADERS'),
    untaggedReasoning: bool(raw, 'LLM_UNTAGGED_REASONING') ?? false,
    defuseSpecialTokens: bool(raw, 'LLM_DEFUSE_SPECIAL_TOKENS') ?? true,
    keepReasoning: oneOf(raw, 'LLM_KEEP_REASONING', 'turn', ['turn', 'off'] as const),
    serverToolParser: oneOf(raw, 'LLM_SERVER_TOOL_PARSER', 'auto', ['auto', 'off'] as const),
    maxHistoryMessages: int(raw, 'LLM_MAX_HISTORY_MESSAGES', 50, 2, 10000),
    historySummary: bool(raw, 'LLM_HISTORY_SUMMARY') ?? false,
    clock: oneOf(raw, 'LLM_CLOCK', 'date', CLOCK_MODES),
    clientTls: llmClientTls(raw),
    ...fallbackLlm(raw),
  };
}
