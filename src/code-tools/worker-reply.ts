/**
 * What a Python worker sends back (assets/python-sandbox.mjs), and what the pool makes of it.
 * Pure: no Nest import.
 */

export interface WorkerMessage {
  type: string;
  id?: number;
  result?: string;
  /** The interpreter's WASM memory, in bytes. */
  memory?: number;
  /** The job's code asked for memory past CODE_TOOLS_MEMORY_MB and was refused it. */
  capped?: boolean;
  /** The job took its process's memory past CODE_TOOLS_MEMORY_MB (files, say) and was stopped. */
  overMemory?: boolean;
  /** The job left the interpreter unusable (Pyodide's fatal error). */
  fatal?: boolean;
  /** What the job changed in the interpreter could not be undone. */
  unrestored?: boolean;
  request?: string;
  /** A call into the engine's number, or a wake-up's (bridge.ts JobCalls). */
  seq?: unknown;
  /** After how long to wake it (ms). */
  ms?: unknown;
}

export const mib = (bytes: number) => Math.round(bytes / 1048576);

const UNREADABLE = {
  ok: false,
  error:
    "Error: RuntimeError: the code tool's reply could not be read (did the code change the json module?)",
  logs: '',
};

/**
 * A worker's reply, written by the runtime in the interpreter the call ran in: code that changed
 * how Python writes JSON (json.JSONEncoder.encode = …) can make it unreadable, which fails that
 * call alone. The `context.state` it carries (JSON in JSON) is read here, once: `state` is the
 * object then.
 */
export function readReply(text: string | undefined): Record<string, unknown> {
  try {
    const reply: unknown = JSON.parse(text ?? '');
    if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) return UNREADABLE;
    const { state } = reply as { state?: unknown };
    if (state === undefined) return reply as Record<string, unknown>;
    const value: unknown = typeof state === 'string' ? JSON.parse(state) : undefined;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return UNREADABLE;
    return { ...reply, state: value };
  } catch {
    return UNREADABLE;
  }
}

/**
 * Why a worker cannot be trusted with another job after this one (CODE_TOOLS_MEMORY_MB being
 * `memoryMb`), if it cannot.
 */
export function distrust(m: WorkerMessage, memoryMb: number): string | undefined {
  const cap = `CODE_TOOLS_MEMORY_MB=${memoryMb}`;
  if (m.fatal) return 'a code tool left its interpreter unusable (Pyodide fatal error)';
  if (m.unrestored) return 'a code tool changed its interpreter in a way that could not be undone';
  if (m.capped) return `a code tool reached ${cap}`;
  const memory = m.memory ?? 0;
  if (memory > memoryMb * 1024 * 1024)
    return `a code tool worker grew to ${mib(memory)} MiB (${cap})`;
  return undefined;
}

/**
 * `result` as the model is to read it: a job stopped for memory gets the MemoryError that names
 * the cap (Emscripten tries a few sizes, larger first: a refusal then a success is no
 * MemoryError).
 */
export function withMemoryVerdict(
  result: Record<string, unknown>,
  m: WorkerMessage,
  memoryMb: number,
): Record<string, unknown> {
  const refused = m.capped && String(result.error).startsWith('Error: MemoryError');
  if (!refused && !(m.overMemory && result.ok !== true)) return result;
  return { ...result, error: memoryError(memoryMb) };
}

/** What the model reads of a call that needed more memory than CODE_TOOLS_MEMORY_MB (`memoryMb`). */
export const memoryError = (memoryMb: number) =>
  `Error: MemoryError: the code needed more memory than CODE_TOOLS_MEMORY_MB (${memoryMb} MiB) allows`;

/** What a job gets when its signal was aborted (the turn was cancelled). */
export const CANCELLED_RESULT = { ok: false, error: 'Error: cancelled', logs: '' } as const;

/** What a job stopped before its reply gets: cancelled, or past its timeout (`timeoutMs`). */
export function stoppedResult(
  stopped: 'timeout' | 'cancelled' | undefined,
  timeoutMs: number,
): Record<string, unknown> {
  if (stopped === 'cancelled') return { ...CANCELLED_RESULT };
  return {
    ok: false,
    error: `Error: TimeoutError: the code ran longer than ${timeoutMs / 1000}s and was stopped`,
    logs: '',
  };
}

/** The error of a job whose code flooded the engine with calls (bridge.ts JobCalls). */
export const FLOOD_ERROR =
  'Error: RuntimeError: the code sent the engine calls past the runtime, more at once than it allows';
