import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';

/** A tool's `max_concurrency`: a backend that takes only so many requests at a time gets no more. */
describe('tools that take a few calls at a time', () => {
  let inFlight = 0;
  let peak = 0;
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        { name: 'ledger', url: `${base}/ledger/{n}`, method: 'GET', max_concurrency: 1 },
        {
          name: 'impatient',
          url: `${base}/impatient/{n}`,
          method: 'GET',
          max_concurrency: 1,
          timeout_secs: 0.3,
        },
      ]),
    }),
    (req, res) => {
      peak = Math.max(peak, ++inFlight);
      setTimeout(() => {
        inFlight--;
        res.end(`done ${req.path}`);
      }, 200);
    },
  );
  const client = useClientPerTest(rig);
  beforeEach(() => (peak = 0));

  /** One turn in which the model makes three calls of `name` in one message; what the model read. */
  async function threeCalls(name: string) {
    const calls = [1, 2, 3].map((n) => ({ id: `call_${n}`, name, arguments: { n } }));
    rig.llm.enqueue(sseStructuredCalls(calls), sseText(['ok']));
    await client.ws.turn(`use ${name}`, 10_000);
    return rig.llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool').map(
      (m: any) => m.content,
    );
  }

  it('runs the calls one after the other, and every caller gets its answer', async () => {
    const started = Date.now();
    expect(await threeCalls('ledger')).toEqual([
      'done /ledger/1',
      'done /ledger/2',
      'done /ledger/3',
    ]);
    expect(peak).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    // Three waits: none, about one call's time, about two.
    const metrics = await (await fetch(`${rig.engine.httpUrl}/metrics`)).text();
    expect(metrics).toMatch(/agent_engine_tool_queue_seconds_count\{tool="ledger"\} 3\b/);
    const sum = Number(
      /agent_engine_tool_queue_seconds_sum\{tool="ledger"\} ([\d.]+)/.exec(metrics)![1],
    );
    expect(sum).toBeGreaterThan(0.5);
  });

  it('does not send a call that waited longer than the tool’s timeout for its turn', async () => {
    expect(await threeCalls('impatient')).toEqual([
      'done /impatient/1',
      'done /impatient/2',
      'Error: tool request failed: not sent: this tool runs at most 1 call at a time, and none of those running ended within 0.3s',
    ]);
    expect(rig.tools.requests.filter((r) => r.path.startsWith('/impatient')).length).toBe(2);
    expect(peak).toBe(1);
  });
});
