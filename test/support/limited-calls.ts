import type { FakeLlm } from './fake-llm.js';
import { sseText } from './fake-llm.js';
import type { RecordingServer } from './recording-server.js';
import { xmlCall } from './turn-harness.js';
import { WsClient, type Msg } from './ws-client.js';

/**
 * `sessions` connections to the engine at `httpUrl` at once (node:cluster hands them to its
 * processes in turn), each of whose turns calls tool `name` once (the model asks for it, then says
 * "Done."): the turns' messages, once all ended.
 */
export async function turnsCalling(
  httpUrl: string,
  llm: FakeLlm,
  name: string,
  sessions: number,
): Promise<Msg[][]> {
  llm.fallback = (body) =>
    body.messages.at(-1).role === 'tool' ? sseText(['Done.']) : sseText([xmlCall(name, {})]);
  const clients = await Promise.all(
    Array.from({ length: sessions }, () => WsClient.connect(`${httpUrl.replace('http', 'ws')}/ws`)),
  );
  const turns = await Promise.all(clients.map((c) => c.turn('go', 10_000)));
  clients.forEach((c) => c.close());
  return turns;
}

/** Has `tools` answer each request after `ms`: how many it answered at most at once, so far. */
function mostAtOnce(tools: RecordingServer, ms: number): () => number {
  let running = 0;
  let most = 0;
  tools.respond((_req, res) => {
    most = Math.max(most, ++running);
    setTimeout(() => res.end(`answered with ${running--} running`), ms);
  });
  return () => most;
}

/** Has `tools` answer at once: when each request arrived (performance.now()), in order. */
function arrivals(tools: RecordingServer): number[] {
  const arrived: number[] = [];
  tools.respond((_req, res) => (arrived.push(performance.now()), res.end('answered')));
  return arrived;
}

/**
 * Six sessions at once each call tool `name`, whose `max_concurrency` is 2, answered after 200 ms:
 * every call is answered, never more than two at once.
 */
export async function expectTwoAtOnce(
  httpUrl: string,
  llm: FakeLlm,
  tools: RecordingServer,
  name: string,
): Promise<void> {
  const most = mostAtOnce(tools, 200);
  tools.requests.length = 0;
  for (const turn of await turnsCalling(httpUrl, llm, name, 6))
    expect(turn.find((m) => m.type === 'tool_result')).toMatchObject({ ok: true });
  expect(tools.requests).toHaveLength(6);
  expect(most()).toBe(2);
}

/**
 * Four sessions at once each call tool `name`, whose `rate_limit` is 2 calls a second: two are sent
 * at once, two when those leave the window (a second later, give or take the requests' way over
 * loopback).
 */
export async function expectTwoASecond(
  httpUrl: string,
  llm: FakeLlm,
  tools: RecordingServer,
  name: string,
): Promise<void> {
  const arrived = arrivals(tools);
  for (const turn of await turnsCalling(httpUrl, llm, name, 4))
    expect(turn.find((m) => m.type === 'tool_result')).toMatchObject({ ok: true });
  arrived.sort((a, b) => a - b);
  expect(arrived).toHaveLength(4);
  expect(arrived[2]! - arrived[0]!).toBeGreaterThanOrEqual(700);
  expect(arrived[3]! - arrived[1]!).toBeGreaterThanOrEqual(700);
}
