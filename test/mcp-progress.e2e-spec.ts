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
        for (let row = 1; row <= 50; row++) await progress!(row, 50);
        await pause(500);
        return text('50 rows');
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
  ]);
  const server = useMcpServer(mcp);
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile(
      ['search_flights', 'count_rows', 'build_report'].map((name) => ({
        type: 'mcp',
        name,
        url: `${server.url}?key=\${TOOL_SECRET_FLIGHTS}`,
      })),
    ),
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
      [1, 50],
      [50, 50],
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
});
