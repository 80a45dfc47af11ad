import { setTimeout as pause } from 'node:timers/promises';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { McpTestServer, useMcpServer } from './support/mcp-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { types, useClientPerTest, useEngineRig } from './support/turn-harness.js';

const KEY = 'k3y-of-the-flights-server';
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

/**
 * A call that takes a while tells the client how far it has got: an MCP server's progress
 * notifications (and a task's status messages) come as `tool_progress` between the call's
 * `tool_call` and its `tool_result`.
 */
describe("MCP tools' progress", () => {
  const mcp = new McpTestServer([
    {
      name: 'search_flights',
      answer: async (_args, { progress }) => {
        for (const [i, airline] of ['Alitalia', 'Lufthansa', 'Iberia'].entries()) {
          await progress!(i + 1, 3, `Checked ${airline}\n(key ${KEY})`);
          await pause(300);
        }
        return text('3 flights');
      },
    },
    {
      name: 'count_rows',
      answer: async (_args, { progress }) => {
        // A server that reports every row: the client is not flooded.
        for (let row = 1; row <= 150; row++) await progress!(row, 150);
        await pause(500);
        return text('150 rows');
      },
    },
    {
      name: 'build_report',
      taskSupport: 'required',
      answer: async (_args, { progress }) => {
        await pause(100);
        await progress!(0, undefined, 'Gathering the figures');
        await pause(300);
        return text('report ready');
      },
    },
    {
      name: 'make_report',
      answer: async (_args, { progress }) => {
        await pause(300);
        await progress!(1, 2, 'Half done');
        await pause(300);
        return text('report 7');
      },
    },
  ]);
  const server = useMcpServer(mcp);
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([
      ...['search_flights', 'count_rows', 'build_report'].map((name) => ({
        type: 'mcp',
        name,
        url: `${server.url}?key=\${TOOL_SECRET_FLIGHTS}`,
      })),
      { type: 'mcp', name: 'make_report', url: server.url, background: true },
    ]),
    TOOL_SECRET_FLIGHTS: KEY,
  }));
  const client = useClientPerTest(rig);

  const callTurn = async (name: string) => {
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name, arguments: {} }]),
      sseText(['Done.']),
    );
    return client.ws.turn(`use ${name}`, 10_000);
  };
  const progressOf = (turn: Awaited<ReturnType<typeof callTurn>>) =>
    turn.filter((m) => m.type === 'tool_progress');

  it("sends each step between the call and its result, the message one line with the tool's secrets masked", async () => {
    const turn = await callTurn('search_flights');
    expect(types(turn)).toEqual([
      'tool_call',
      'tool_progress',
      'tool_progress',
      'tool_progress',
      'tool_result',
      'assistant_delta',
      'assistant_end',
    ]);
    expect(progressOf(turn)).toEqual(
      ['Alitalia', 'Lufthansa', 'Iberia'].map((airline, i) => ({
        type: 'tool_progress',
        id: 'call_1',
        name: 'search_flights',
        progress: i + 1,
        total: 3,
        message: `Checked ${airline} (key [secret])`,
      })),
    );
    // What the model reads is the result alone.
    expect(JSON.stringify(rig.llm.requests[1]!.body.messages)).not.toContain('Checked');
  });

  it('sends at most one update a quarter second: the first and then the latest', async () => {
    const turn = await callTurn('count_rows');
    expect(progressOf(turn).map((m) => [m.progress, m.total])).toEqual([
      [1, 150],
      [150, 150],
    ]);
    expect(turn.find((m) => m.type === 'tool_result')).toMatchObject({ ok: true });
  });

  it("sends a task's status messages as they change", async () => {
    const turn = await callTurn('build_report');
    expect(progressOf(turn)).toEqual([
      {
        type: 'tool_progress',
        id: 'call_1',
        name: 'build_report',
        message: 'Gathering the figures',
      },
    ]);
    expect(mcp.tasks.polled).toBeGreaterThan(0);
    expect(types(turn).indexOf('tool_progress')).toBeLessThan(types(turn).indexOf('tool_result'));
  });

  it("sends a background call's progress after its turn, before its result", async () => {
    const from = client.ws.messages.length;
    const turn = await callTurn('make_report');
    expect(types(turn)).toEqual(['tool_call', 'tool_result', 'assistant_delta', 'assistant_end']);
    rig.llm.enqueue(sseText(['Your report is ready.']));
    await client.ws.waitFor((m) => m.type === 'assistant_end', from + turn.length, 10_000);
    const after = client.ws.messages.slice(from + turn.length);
    expect(after.slice(0, 2)).toEqual([
      {
        type: 'tool_progress',
        id: 'call_1',
        name: 'make_report',
        progress: 1,
        total: 2,
        message: 'Half done',
      },
      expect.objectContaining({ type: 'tool_result', id: 'call_1', background: 'done', ok: true }),
    ]);
  });

  it('answers a try over /api/tools/{name}/call with every update, timed: the first 99 and the last', async () => {
    const tried = async (name: string) => {
      const res = await fetch(`${rig.engine.httpUrl}/api/tools/${name}/call`, { method: 'POST' });
      return (await res.json()) as { ok: boolean; progress: Record<string, unknown>[] };
    };
    const flights = await tried('search_flights');
    expect(flights).toMatchObject({ ok: true, result: '3 flights' });
    expect(flights.progress).toEqual(
      ['Alitalia', 'Lufthansa', 'Iberia'].map((airline, i) => ({
        ms: expect.any(Number),
        progress: i + 1,
        total: 3,
        message: `Checked ${airline} (key [secret])`,
      })),
    );
    // Timed from the call's start as each came: the server waits 300 ms after each. A loaded
    // machine may hand one over late, never early, so the bounds are on what cannot shrink.
    const [a, b, c] = flights.progress.map((p) => p.ms as number) as [number, number, number];
    expect(a).toBeLessThanOrEqual(b);
    expect(b).toBeLessThanOrEqual(c);
    expect(b).toBeGreaterThanOrEqual(290);
    expect(c).toBeGreaterThanOrEqual(590);
    expect(c - a).toBeGreaterThanOrEqual(250);
    const rows = (await tried('count_rows')).progress;
    expect(rows).toHaveLength(100);
    expect(rows.map((p) => p.progress)).toEqual([...range(1, 99), 150]);
  });
});

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);
