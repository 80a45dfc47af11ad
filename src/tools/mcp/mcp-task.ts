/**
 * A call to a tool its server runs only as a task (MCP 2025-11-25 `execution.taskSupport:
 * "required"`): `tools/call` creates the task, `tasks/get` is asked until it ends, `tasks/result`
 * gives what the call would have answered. Within the call's time, as any call (standing still
 * while its user is asked).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { setTimeout as pause } from 'node:timers/promises';
import { notTaken, whileRunning } from './mcp-faults.js';
import type { McpCallResult } from './mcp-result.js';
import type { McpSdk } from './mcp-sdk.js';
import type { CallDeadline } from '../../common/call-deadline.js';

/** JSON-RPC's internal error. */
const INTERNAL_ERROR = -32603;
/** Statuses after which a task changes no more. */
const ENDED = new Set(['completed', 'failed', 'cancelled']);
/** Between two `tasks/get`: the server's `pollInterval`, within these bounds (ms). */
const POLL_MS = { least: 50, most: 2000, unsaid: 250 };
/** How long past the call's time the server is asked to keep the task (ms). */
const TTL_MARGIN_MS = 30_000;
/** How long a `tasks/cancel` for a task given up may take (ms). */
const CANCEL_MS = 2000;

interface Task {
  taskId: string;
  status: string;
  statusMessage?: string;
  pollInterval?: number;
}

export async function callAsTask(
  sdk: McpSdk,
  client: Client,
  params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> },
  {
    deadline,
    signal,
    onprogress,
  }: {
    /** The call's time, standing still while its server waits for its user's answer. */
    deadline: CallDeadline;
    signal: AbortSignal | undefined;
    onprogress?: (update: { progress?: number; total?: number; message?: string }) => void;
  },
): Promise<McpCallResult> {
  const stop = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
  // Each request with a signal of its own, following `stop` while it runs: given `stop` itself,
  // the SDK would tell the server, once the call is given up, that every `tasks/get` it had
  // already answered was cancelled too. The SDK's own timer only backs the deadline up.
  const asking = <T>(request: (options: { timeout: number; signal?: AbortSignal }) => Promise<T>) =>
    whileRunning(stop, (own) => request({ timeout: deadline.backstopMs, signal: own }));
  deadline.start();
  let task: Task | undefined;
  try {
    const created = await asking((options) =>
      client.request({ method: 'tools/call', params }, sdk.CreateTaskResultSchema, {
        ...options,
        onprogress,
        task: { ttl: deadline.ms + TTL_MARGIN_MS },
      }),
    );
    task = created.task;
    const { taskId } = created.task;
    if (task.statusMessage) onprogress?.({ message: task.statusMessage });
    while (!ENDED.has(task.status) && task.status !== 'input_required') {
      const interval = Math.min(
        Math.max(task.pollInterval ?? POLL_MS.unsaid, POLL_MS.least),
        POLL_MS.most,
      );
      await pause(interval, undefined, { signal: stop });
      const said: string | undefined = task.statusMessage;
      task = await asking<Task>((options) => client.experimental.tasks.getTask(taskId, options));
      // A new status message tells how far the task has got, as a progress notification would.
      if (task.statusMessage && task.statusMessage !== said && !ENDED.has(task.status))
        onprogress?.({ message: task.statusMessage });
    }
    // An answer of the server (as an error it answers), not a connection that failed.
    if (task.status === 'cancelled')
      throw new sdk.McpError(
        INTERNAL_ERROR,
        `the MCP server cancelled the task${task.statusMessage ? `: ${task.statusMessage}` : ''}`,
      );
    // Completed or failed: what the call would have answered (a result, or its error). Waiting
    // for input: the answer once the server has it (its question, `elicitation/create`, comes
    // on this request and is answered as any, the time standing still: mcp-elicitation.ts).
    return await asking((options) =>
      client.experimental.tasks.getTaskResult(taskId, sdk.CallToolResultSchema, options),
    );
  } catch (error) {
    // Given up (the turn cut short, the time over, the connection lost): the server need not
    // work on for nothing. Whatever it answers, the call has failed.
    if (task && !ENDED.has(task.status))
      void client.experimental.tasks
        .cancelTask(task.taskId, { timeout: CANCEL_MS })
        .catch(() => {});
    // The time over: the deadline's own error (a wait it cut short says only that it was aborted).
    if (deadline.signal.aborted) throw deadline.signal.reason;
    // The server took the call: it must not be made again in a new session (mcp-clients.ts).
    if (task && notTaken(error))
      throw new Error(`the MCP server lost the task: ${(error as Error).message}`, {
        cause: error,
      });
    throw error;
  } finally {
    deadline.clear();
  }
}
