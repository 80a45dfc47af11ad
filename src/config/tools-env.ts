/**
 * The tool settings (`LLM_TOOL*`, `TOOL_CONFIRM_*`) of the environment. Pure: no Nest import.
 */
import { DEFAULT_CONFIRM_NO, DEFAULT_CONFIRM_YES } from './env-defaults.js';
import {
  bool,
  confirmKeys,
  type ConfirmKeys,
  int,
  num,
  oneOf,
  phraseList,
  type Raw,
  secondsOrNever,
} from './env-values.js';

const MiB = 1024 * 1024;

export interface ToolsEnv {
  /** Effective switch at boot (seed §2). */
  enabled: boolean;
  /** `LLM_TOOLS_ENABLED` as set, or undefined for "auto". */
  explicit: boolean | undefined;
  file: string;
  /** The tools file is checked for changes this often (LLM_TOOLS_FILE_WATCH_SECS; 0: never). */
  fileWatchSecs: number;
  /** OpenAPI documents at URLs are read again this often (LLM_TOOLS_SPEC_URL_WATCH_SECS; 0: never). */
  specUrlWatchSecs: number;
  /** MCP servers' lists of tools are read again this often (LLM_TOOLS_MCP_LIST_WATCH_SECS; 0: never). */
  mcpListWatchSecs: number;
  maxIterations: number;
  /** Calls of one model message that are run; the rest get an error text (a runaway model). */
  maxCallsPerRound: number;
  /** Calls that change nothing start as soon as the model has written them (LLM_TOOL_EARLY_START). */
  earlyStart: boolean;
  /** A call that acted, made again later in its turn: `reuse` its result, or `run` it again. */
  repeatCalls: 'reuse' | 'run';
  /** A call that acts, running when its turn is cut: let `finish` (its result told later), or `abort`ed. */
  interruptedCalls: 'finish' | 'abort';
  /** An answer that ends promising to act with no call is asked once more (LLM_TOOL_NUDGE). */
  nudge: boolean;
  timeoutSecs: number;
  /** Further attempts of a tool request that failed transiently (LLM_TOOL_RETRIES). */
  retries: number;
  retryBackoffMs: number;
  /** Calls in a row whose backend was down that open a tool's circuit (0: never). */
  breakerFailures: number;
  /** How long an open circuit keeps a tool's calls from being sent. */
  breakerCooldownSecs: number;
  resultMaxChars: number;
  maxResponseBytes: number;
  /** How long a call of a `"confirm": true` tool waits for the user's approval. */
  confirmTimeoutSecs: number;
  /** Phrases that, said or typed while a call awaits approval, approve or decline it. */
  confirmYes: string[];
  confirmNo: string[];
  /**
   * TOOL_CONFIRM_KEY_YES and TOOL_CONFIRM_KEY_NO: the phone keys that answer a call awaiting
   * approval; TOOL_CONFIRM_KEY_REPEAT: the one that has a waiting call's question asked again.
   */
  confirmKeys: ConfirmKeys;
}

/** The tool settings of `raw`; `toolsFile` is LLM_TOOLS_FILE as read (its absence turns tools off). */
export function parseTools(raw: Raw, toolsFile: string): ToolsEnv {
  return {
    enabled: bool(raw, 'LLM_TOOLS_ENABLED') ?? toolsFile !== '',
    explicit: bool(raw, 'LLM_TOOLS_ENABLED'),
    file: toolsFile,
    fileWatchSecs: secondsOrNever(raw, 'LLM_TOOLS_FILE_WATCH_SECS', 3600),
    specUrlWatchSecs: secondsOrNever(raw, 'LLM_TOOLS_SPEC_URL_WATCH_SECS', 86400),
    mcpListWatchSecs: secondsOrNever(raw, 'LLM_TOOLS_MCP_LIST_WATCH_SECS', 86400),
    maxIterations: int(raw, 'LLM_TOOL_MAX_ITERATIONS', 4, 0, 100),
    maxCallsPerRound: int(raw, 'LLM_TOOL_MAX_CALLS_PER_ROUND', 16, 1, 256),
    earlyStart: bool(raw, 'LLM_TOOL_EARLY_START') ?? true,
    repeatCalls: oneOf(raw, 'LLM_TOOL_REPEAT_CALLS', 'reuse', ['reuse', 'run'] as const),
    interruptedCalls: oneOf(raw, 'LLM_TOOL_INTERRUPTED_CALLS', 'finish', [
      'finish',
      'abort',
    ] as const),
    nudge: bool(raw, 'LLM_TOOL_NUDGE') ?? true,
    timeoutSecs: num(raw, 'LLM_TOOL_TIMEOUT_SECS', 15, 0, 3600),
    retries: int(raw, 'LLM_TOOL_RETRIES', 1, 0, 5),
    retryBackoffMs: int(raw, 'LLM_TOOL_RETRY_BACKOFF_MS', 200, 0, 10_000),
    breakerFailures: int(raw, 'LLM_TOOL_BREAKER_FAILURES', 5, 0, 1000),
    breakerCooldownSecs: num(raw, 'LLM_TOOL_BREAKER_COOLDOWN_SECS', 30, 0, 3600),
    resultMaxChars: int(raw, 'LLM_TOOL_RESULT_MAX_CHARS', 2000, 1, 10_000_000),
    maxResponseBytes: int(raw, 'LLM_TOOL_MAX_RESPONSE_BYTES', MiB, 1, 1024 * MiB),
    confirmTimeoutSecs: num(raw, 'TOOL_CONFIRM_TIMEOUT_SECS', 30, 0, 3600),
    confirmYes: phraseList(raw, 'TOOL_CONFIRM_YES', DEFAULT_CONFIRM_YES),
    confirmNo: phraseList(raw, 'TOOL_CONFIRM_NO', DEFAULT_CONFIRM_NO),
    confirmKeys: confirmKeys(raw),
  };
}
