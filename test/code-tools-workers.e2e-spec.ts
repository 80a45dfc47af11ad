import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

const WORK = `def work(secs: float) -> str:
    """Works for a while."""
    import time
    end = time.time() + secs
    while time.time() < end:
        pass
    return f"worked {secs}s"
`;

/**
 * Calls of one round that outnumber CODE_TOOLS_WORKERS wait for a worker: each wait is in
 * /metrics (how an operator sees that the engine needs more workers), and a call that would wait
 * past its timeout does not run.
 */
describe('code tools: calls waiting for a worker', () => {
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([{ type: 'python', code: WORK, timeout_secs: 1.5 }]),
    CODE_TOOLS_WORKERS: '1',
  }));

  it('counts each wait in /metrics, and fails a call whose wait outlasts its timeout', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    rig.llm.enqueue(
      sseStructuredCalls([
        { id: 'call_1', name: 'work', arguments: { secs: 1 } },
        { id: 'call_2', name: 'work', arguments: { secs: 1 } },
        { id: 'call_3', name: 'work', arguments: { secs: 0.1 } },
      ]),
      sseText(['Done.']),
    );
    await ws.turn('work', 30_000);
    const read = rig.llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    // The first runs at once; the second waits ~1 s of its 1.5 s, then runs 1 s; the third's wait
    // reaches its 1.5 s while the second runs.
    expect(read.map((m: any) => m.content)).toEqual([
      '"worked 1s"',
      '"worked 1s"',
      'Error: TimeoutError: no code tools worker was free within 1.5s (all 1 busy): the code did not run',
    ]);
    const metrics = await (await fetch(`${rig.engine.httpUrl}/metrics`)).text();
    // Two calls got a worker: after no wait, and after about the first one's 1 s.
    expect(metrics).toMatch(/^agent_engine_code_tools_wait_seconds_count 2$/m);
    const sum = Number(/^agent_engine_code_tools_wait_seconds_sum ([\d.]+)$/m.exec(metrics)![1]);
    expect(sum).toBeGreaterThan(0.8);
    ws.close();
  }, 60_000);
});
