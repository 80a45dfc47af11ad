import type { IncomingHttpHeaders } from 'node:http';
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
