import type { Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { FAULT_WORDS } from './chaos-checks.js';
import { sseText, type FakeLlm } from './fake-llm.js';
import { expectStillAnswering } from './still-answering.js';
import type { Msg, WsClient } from './ws-client.js';

/**
 * A turn of `ws` whose first round (queued on `llm`) makes the calls `ids`, and whose second
 * answers `Done.`: it ends so, no `error` comes, and each call gets one `tool_result` and one tool
 * message of text in the model's next request, a failure's in words a reader can act on (never a
 * JavaScript fault's). Each call's result event and text.
 */
export async function turnWithCalls(
  llm: FakeLlm,
  ws: WsClient,
  ids: string[],
): Promise<{ result: Msg; read: string }[]> {
  const from = ws.messages.length;
  await ws.turn('go', 15_000);
  const events = ws.messages.slice(from);
  expect(events.at(-1)).toEqual({ type: 'assistant_end', text: 'Done.' });
  expect(events.filter((m) => m.type === 'error')).toEqual([]);
  const told = llm.requests[1]!.body.messages as Msg[];
  return ids.map((id) => {
    const results = events.filter((m) => m.type === 'tool_result' && m.id === id);
    expect(results).toHaveLength(1);
    const read = told.filter((m) => m.role === 'tool' && m.tool_call_id === id);
    expect(read).toEqual([expect.objectContaining({ content: expect.any(String) })]);
    if (!results[0]!.ok) expect(read[0]!.content).not.toMatch(FAULT_WORDS);
    return { result: results[0]!, read: read[0]!.content as string };
  });
}

/**
 * `server` listening on a free loopback port for the describe block (closed after it, its
 * connections cut): its `http://` base URL, once listening.
 */
export function useLoopback(server: Server): () => string {
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    (server as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return () => base;
}

/** After a fuzz suite's turns on `ws`: the next turn is answered (see expectStillAnswering). */
export async function answersOn(llm: FakeLlm, ws: WsClient): Promise<void> {
  llm.reset();
  llm.fallback = () => sseText(['Fine.']);
  await expectStillAnswering(ws);
}
