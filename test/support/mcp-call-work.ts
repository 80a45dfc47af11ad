/**
 * What the test MCP server's tools may do while they answer a call (mcp-server.ts): on a plain
 * call, log, tell their progress, ask their user or their client's model; as a task, tell their
 * status and ask their user through the task.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ElicitResultSchema,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpTestTool } from './mcp-server.js';

/**
 * The params of a form `elicitation/create` asking `message`, the form's fields `properties`
 * (`required`: those the user must fill).
 */
export const formParams = (
  message: string,
  properties: Record<string, unknown>,
  required?: string[],
) => ({
  mode: 'form' as const,
  message,
  requestedSchema: { type: 'object', properties, ...(required && { required }) } as never,
});

/**
 * What a plain call's work may do on its client: log, tell its progress (when the client asked
 * for it, `progressToken`), ask its user (giving up after `timeout`), ask its model.
 */
export function callSide(
  server: Server,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  progressToken: string | number | undefined,
) {
  const related = { relatedRequestId: extra.requestId };
  return {
    log: (level: string, data: unknown) =>
      extra.sendNotification({
        method: 'notifications/message',
        params: { level: level as 'info', logger: 'orders', data },
      }),
    progress:
      progressToken === undefined
        ? undefined
        : (progress: number, total?: number, message?: string) =>
            extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress, total, message },
            }),
    elicit: (
      message: string,
      properties: Record<string, unknown> = {},
      required?: string[],
      timeout?: number,
    ) =>
      server.elicitInput(formParams(message, properties, required), {
        ...related,
        ...(timeout && { timeout }),
      }),
    sample: (params: Record<string, unknown>) => server.createMessage(params as never, related),
  };
}

/** What the test server counts of its tasks, and what aborts each one's work (by task id). */
export interface TaskBook {
  tasks: { created: number };
  work: Map<string, AbortController>;
}

/**
 * A call made as a task (MCP 2025-11-25): the task is answered at once, its work goes on until
 * its result is stored. Its status messages are its progress; its questions go with the task
 * (status `input_required`, delivered to the client on `tasks/result`).
 */
export async function startTask(
  tool: McpTestTool,
  args: Record<string, unknown>,
  headers: IncomingHttpHeaders,
  ttl: number | undefined,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  book: TaskBook,
): Promise<{ task: unknown }> {
  const store = extra.taskStore!;
  const created = await store.createTask({ ttl, pollInterval: 20 });
  book.tasks.created++;
  const work = new AbortController();
  book.work.set(created.taskId, work);
  const progress = (_p: number, _t?: number, message?: string) =>
    store.updateTaskStatus(created.taskId, 'working', message);
  const elicit = (message: string, properties: Record<string, unknown> = {}) =>
    extra.sendRequest(
      { method: 'elicitation/create', params: formParams(message, properties) },
      ElicitResultSchema,
      // (The SDK's types leave relatedTask out of a handler's requests; it honours it.)
      { relatedTask: { taskId: created.taskId } } as never,
    );
  const answered = Promise.resolve(
    tool.answer(args, { signal: work.signal, headers, progress, elicit }),
  );
  void answered.then(async (result) => {
    if (!work.signal.aborted) await store.storeTaskResult(created.taskId, 'completed', result);
  });
  return { task: created };
}
