import { until } from './waiting.js';
import type { WsClient } from './ws-client.js';

/**
 * After whatever a fuzz suite sent on `ws`: the engine still reads it (a ping after an interrupt
 * is answered), answers the next turn (the fake LLM's `Fine.`; `before` is sent first, a setting
 * for it), never failed inside (no `internal` error) and kept the connection open.
 */
export async function expectStillAnswering(ws: WsClient, before: object[] = []): Promise<void> {
  ws.send({ type: 'interrupt' });
  ws.send({ type: 'ping', id: 'last' });
  await until(() => ws.messages.some((m) => m.type === 'pong' && m.id === 'last'), 'pong');
  const from = ws.messages.length;
  for (const message of before) ws.send(message);
  ws.send({ type: 'user_text', text: 'final' });
  const answered = () =>
    ws.messages
      .slice(from)
      .some((m) => m.type === 'assistant_end' && m.text === 'Fine.' && !m.interrupted);
  await until(
    answered,
    () => `the last turn's answer: ${JSON.stringify(ws.messages.slice(-8))}`,
    10_000,
  );
  expect(ws.messages.filter((m) => m.type === 'error' && m.code === 'internal')).toEqual([]);
  expect(ws.socket.readyState).toBe(ws.socket.OPEN);
}
