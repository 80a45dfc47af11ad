/**
 * Every environment variable the engine reads, parsed and validated in one place.
 * Pure: no Nest import. A bad value throws an EnvError naming the variable and what it accepts.
 */
import type { Phrases } from '../common/phrases.js';
import { availableParallelism } from 'node:os';
import { cgroupCpuLimit } from './cpu-quota.js';
import { parseSpeech, type SpeechEnv } from './speech-env.js';
import { parseTools, type ToolsEnv } from './tools-env.js';
import { parseEgress } from './egress-env.js';
import { parseTracing, type TracingSettings } from './otel-env.js';
import type { EgressSettings } from '../common/egress.js';
import { DEFAULT_LIMIT_GOODBYES } from './env-defaults.js';
import { parseLlm, type LlmEnv } from './llm-env.js';
import { parseRedaction } from './redaction-env.js';
import type { RedactionSettings } from '../common/redaction.js';
import {
  bool,
  EnvError,
  httpUrl,
  int,
  secondsOrNever,
  oneOf,
  originList,
  phrasePerLanguage,
  present,
  type Raw,
  redisUrl,
  timeZone,
} from './env-values.js';

export { EnvError } from './env-values.js';
export type { SpeechEnv } from './speech-env.js';
export type { LlmEnv } from './llm-env.js';

export interface Env {
  port: number;
  /** Engine processes sharing the port (node:cluster); 1 runs no cluster at all. */
  processes: number;
  logLevel: 'error' | 'warn' | 'log' | 'debug' | 'verbose';
  logFormat: 'json' | 'pretty';
  /** When set, `/api/tools` requires `Authorization: Bearer <key>`. */
  adminApiKey: string;
  /** Web origins whose pages may call the HTTP API (CORS); none when empty. */
  corsOrigins: string[];
  /** On SIGTERM/SIGINT, how long turns in progress may run on before they are cut short. */
  shutdownGraceSecs: number;
  /** How often secrets given as files are read again (0: at start-up only). */
  secretFilesWatchSecs: number;
  llm: LlmEnv;
  tools: ToolsEnv;
  ws: {
    maxMessageBytes: number;
    pingIntervalSecs: number;
    maxBufferedBytes: number;
    /** Sessions one engine process takes at most; 0 for no limit. */
    maxSessions: number;
    /** Turns one session may start in a minute; 0 for no limit. */
    maxTurnsPerMinute: number;
    /** When set, `/ws` requires it (Bearer header or `token` query parameter). Secret. */
    apiKey: string;
    /** When set, a browser's upgrade from another origin is refused (403); empty: any origin. */
    allowedOrigins: string[];
    /** `GET /demo`: a page that talks to the agent over `/ws` (text, microphone, speech). */
    demoPage: boolean;
  };
  speech: SpeechEnv;
  /** The proxy every outbound request goes through (EGRESS_PROXY), and the servers that do not. */
  egress: EgressSettings;
  /** Spans of turns, completions and tool calls exported to an OpenTelemetry collector. */
  tracing: TracingSettings;
  metrics: {
    /** `GET /metrics` (Prometheus) and the Node.js process metrics. */
    enabled: boolean;
  };
  sessions: {
    /** How long a disconnected session can be resumed; 0 turns resuming off. */
    resumeSecs: number;
    /** How long what its tools hold (`per_session` MCP connections) waits for its resuming. */
    toolsKeepSecs: number;
    /** Where sessions are kept for resuming: '' in this process, or a Redis URL. Secret. */
    storeUrl: string;
    /** Longest `instructions` a client may set with `session.update`; 0 refuses them. */
    instructionsMaxChars: number;
    /**
     * The assistants a client may give its session (`session.update`'s `agent`), by name (theirs
     * or their handoff tools'): null for any, [] for none (SESSION_AGENTS).
     */
    clientAgents: string[] | null;
    /** The time zone of a session that sets none (SESSION_TIMEZONE): an IANA name. */
    timeZone: string;
    /** Where each connection's end-of-session report is POSTed; '' for nowhere. */
    webhookUrl: string;
    /** The key of the reports' HMAC signature (X-Engine-Signature); '' for none. Secret. */
    webhookSecret: string;
    /** What operators see of users' words (reports, `/api/sessions`, debug logs), redacted. */
    redaction: RedactionSettings;
    /** Sessions may give their tools' results (`tool_mocks`): an engine under test. */
    toolMocks: boolean;
    /** How long a conversation may last (SESSION_MAX_SECS), and what ends it. */
    limit: SessionLimit;
  };
  codeTools: {
    workers: number;
    memoryMb: number;
    packagesDir: string;
    allowPrivateNetwork: boolean;
    agentName: string;
  };
}

const MiB = 1024 * 1024;

/** A conversation's time limit (SESSION_MAX_SECS, SESSION_MAX_GOODBYE). */
export interface SessionLimit {
  /** How long a conversation may last, from its first connection; 0: no limit. */
  secs: number;
  /** What the agent says as it ends one, by language code; none for a language it lacks. */
  goodbyes: Phrases;
  /** How long before the end the model is told the conversation is ending; 0: never. */
  noticeSecs: number;
  /** How long a turn running at the limit may go on before it is cut for the goodbye. */
  graceMs: number;
}

/** A turn running when the time is up ends first, within this much more. */
const LIMIT_GRACE_MS = 15_000;
/** `ENGINE_PROCESSES`: a count, or `auto` for one per CPU the process may use (see cpu-quota.ts). */
function processes(raw: Raw): number {
  const value = present(raw, 'ENGINE_PROCESSES');
  if (value?.toLowerCase() === 'auto')
    return Math.max(1, Math.min(availableParallelism(), cgroupCpuLimit() ?? Infinity, 64));
  try {
    return int(raw, 'ENGINE_PROCESSES', 1, 1, 64);
  } catch {
    throw new EnvError(
      `ENGINE_PROCESSES=${JSON.stringify(value)} is invalid: expected an integer from 1 to 64, or auto`,
    );
  }
}

/** SESSION_AGENTS: `*` (the default) for any assistant, `none` for none, else names by commas. */
function clientAgents(raw: Raw): string[] | null {
  const value = present(raw, 'SESSION_AGENTS') ?? '*';
  if (value === '*') return null;
  if (value.toLowerCase() === 'none') return [];
  const names = value.split(',').map((n) => n.trim());
  const bad = names.find((n) => !/^[A-Za-z0-9_ .-]{1,64}$/.test(n));
  if (bad !== undefined)
    throw new EnvError(
      `SESSION_AGENTS=${JSON.stringify(value)} is invalid: ${JSON.stringify(bad)} is no assistant's name; expected "*", "none", or the names of assistants (a handoff tool's agent, or the tool's name) separated by commas`,
    );
  return names;
}

export function parseEnv(raw: Raw): Env {
  const toolsFile = present(raw, 'LLM_TOOLS_FILE') ?? '';
  return {
    port: int(raw, 'PORT', 8787, 0, 65535),
    processes: processes(raw),
    logLevel: oneOf(raw, 'LOG_LEVEL', 'log', ['error', 'warn', 'log', 'debug', 'verbose'] as const),
    logFormat: oneOf(raw, 'LOG_FORMAT', 'json', ['json', 'pretty'] as const),
    adminApiKey: present(raw, 'ADMIN_API_KEY') ?? '',
    corsOrigins: originList(raw, 'CORS_ORIGINS'),
    shutdownGraceSecs: int(raw, 'SHUTDOWN_GRACE_SECS', 20, 0, 3600),
    secretFilesWatchSecs: secondsOrNever(raw, 'SECRET_FILES_WATCH_SECS', 3600),
    llm: parseLlm(raw),
    tools: parseTools(raw, toolsFile),
    ws: {
      maxMessageBytes: int(raw, 'WS_MAX_MESSAGE_BYTES', MiB, 64, 64 * MiB),
      pingIntervalSecs: int(raw, 'WS_PING_INTERVAL_SECS', 30, 0, 3600),
      maxBufferedBytes: int(raw, 'WS_MAX_BUFFERED_BYTES', 16 * MiB, 64 * 1024, 1024 * MiB),
      maxSessions: int(raw, 'WS_MAX_SESSIONS', 0, 0, 1_000_000),
      maxTurnsPerMinute: int(raw, 'WS_MAX_TURNS_PER_MINUTE', 0, 0, 10_000),
      apiKey: present(raw, 'WS_API_KEY') ?? '',
      allowedOrigins: originList(raw, 'WS_ALLOWED_ORIGINS'),
      demoPage: bool(raw, 'WS_DEMO_PAGE') ?? true,
    },
    speech: parseSpeech(raw),
    egress: parseEgress(raw),
    tracing: parseTracing(raw),
    metrics: { enabled: bool(raw, 'METRICS_ENABLED') ?? true },
    sessions: {
      resumeSecs: int(raw, 'SESSION_RESUME_SECS', 300, 0, 7 * 24 * 3600),
      toolsKeepSecs: int(raw, 'SESSION_TOOLS_KEEP_SECS', 600, 0, 7 * 24 * 3600),
      storeUrl: redisUrl(raw, 'SESSION_STORE_URL'),
      instructionsMaxChars: int(raw, 'SESSION_INSTRUCTIONS_MAX_CHARS', 4000, 0, 100_000),
      clientAgents: clientAgents(raw),
      timeZone: timeZone(raw, 'SESSION_TIMEZONE', 'UTC'),
      webhookUrl: httpUrl(raw, 'SESSION_WEBHOOK_URL', ''),
      webhookSecret: present(raw, 'SESSION_WEBHOOK_SECRET') ?? '',
      redaction: parseRedaction(raw),
      toolMocks: bool(raw, 'SESSION_TOOL_MOCKS') ?? false,
      limit: {
        secs: int(raw, 'SESSION_MAX_SECS', 0, 0, 7 * 24 * 3600),
        goodbyes: phrasePerLanguage(raw, 'SESSION_MAX_GOODBYE', DEFAULT_LIMIT_GOODBYES),
        noticeSecs: int(raw, 'SESSION_MAX_NOTICE_SECS', 60, 0, 3600),
        graceMs: LIMIT_GRACE_MS,
      },
    },
    codeTools: {
      workers: int(raw, 'CODE_TOOLS_WORKERS', 2, 1, 64),
      memoryMb: int(raw, 'CODE_TOOLS_MEMORY_MB', 512, 64, 4096),
      packagesDir: present(raw, 'CODE_TOOLS_PACKAGES_DIR') ?? '',
      allowPrivateNetwork: bool(raw, 'CODE_TOOLS_ALLOW_PRIVATE_NETWORK') ?? false,
      agentName: present(raw, 'AGENT_NAME') ?? 'agent',
    },
  };
}
