import type { ServerResponse } from 'node:http';
import { useTwoProcesses } from './support/built-engine.js';
import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { firstHeld, reportTool, writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';
import { until } from './support/waiting.js';

/** The pid of the process that logged `message` about session `id` (JSON logs). */
function pidOf(output: string, message: string, id: string): number | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes(`${message} (session_id=${id})`)) continue;
    return (JSON.parse(line) as { pid: number }).pid;
  }
  return undefined;
}

/**
 * ENGINE_PROCESSES=2 without Redis: a client whose connection to one process still looks open
 * resumes its session on the other (node:cluster hands connections to the processes in turn).
 * The old connection is closed (4001), and the background call it started, which runs on the
 * first process, is told on the new connection — all through the primary.
 */
describe('a background call whose session is resumed on another engine process', () => {
  const llm = new FakeLlm();
  const tools = new RecordingServer();
  const held: ServerResponse[] = [];
  const engine = useTwoProcesses(async () => {
    const base = await tools.start();
    tools.respond((_req, res) => void held.push(res));
    return {
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([reportTool(base)]),
    };
  });
  afterAll(() => Promise.all([llm.stop(), tools.stop()]));

  it('closes the old connection (4001) and tells the result on the new one', async () => {
    const { wsUrl } = engine();
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_r', name: 'make_report', arguments: { id: '7' } }]),
      sseText(['Started.']),
      sseText(['Your report ', 'is ready.']),
    );
    const old = await WsClient.connect(wsUrl);
    const opened = old.messages.find((m) => m.type === 'session')!;
    await old.turn('make report 7');
    const call = await firstHeld(held);
    const resumed = await WsClient.connect(
      `${wsUrl}?resume=${encodeURIComponent(opened.resume_token as string)}`,
    );
    expect(resumed.messages[0]).toMatchObject({ type: 'session', resumed: true });
    expect(await old.closed).toBe(4001);
    call.end('report 7: 12 pages');
    expect(
      await resumed.waitFor((m) => m.type === 'tool_result' && m.background === 'done'),
    ).toMatchObject({ id: 'call_r', ok: true });
    expect(await resumed.waitFor((m) => m.type === 'assistant_end')).toEqual({
      type: 'assistant_end',
      text: 'Your report is ready.',
    });
    expect(llm.requests[2]!.body.messages.at(-1).content).toContain('report 7: 12 pages');
    // It was the other process. (Its log lines come through a pipe of their own, which may be
    // read after the frames were.)
    const id = opened.session_id as string;
    const pids = () => [
      pidOf(engine().output, 'session opened', id),
      pidOf(engine().output, 'session resumed', id),
    ];
    await until(
      () => !pids().includes(undefined),
      () => `both log lines in ${engine().output}`,
    );
    const [first, second] = pids();
    expect(second).not.toBe(first);
    resumed.close();
  }, 30_000);
});
