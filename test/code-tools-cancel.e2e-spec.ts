import { readFileSync } from 'node:fs';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

const SLOW_UPDATE = `def slow_update() -> None:
    """Changes the profile, then works for a long time."""
    import time
    context.state["customer_profile"] = {"loyalty_points": 999}
    end = time.time() + 40
    while time.time() < end:
        pass
`;

/**
 * A barge-in while a Python code tool runs: the code is interrupted at once, its worker is free
 * for the next call, and what it changed in context.state is not kept (the model is told the call
 * was cancelled).
 */
describe('code tools when the turn is cancelled', () => {
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([
      { type: 'python', code: readFileSync('test/fixtures/code-tools/loyalty.py', 'utf8') },
      { type: 'python', code: SLOW_UPDATE, timeout_secs: 60 },
    ]),
    CODE_TOOLS_WORKERS: '1',
  }));

  /** Enqueues a call of `name` with `args`, then the model's answer after it. */
  const call = (name: string, args: Record<string, unknown> = {}) =>
    rig.llm.enqueue(
      sseStructuredCalls([{ id: `call_${name}`, name, arguments: args }]),
      sseText(['Done.']),
    );
  const points = (content: string) =>
    (JSON.parse(content) as { loyalty_points: number }).loyalty_points;

  it('interrupts the running code, frees its worker and drops its state changes', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    call('update_customer_loyalty_points', { points_to_add: 10 });
    await ws.turn('add ten', 30_000); // the first call waits for Python to start
    expect(points(rig.llm.requests[1]!.body.messages.at(-1).content)).toBe(10);

    call('slow_update');
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'reset my profile' });
    await ws.waitFor((m) => m.type === 'tool_call' && m.name === 'slow_update', from);
    ws.send({ type: 'interrupt' });
    expect(await ws.waitFor((m) => m.type === 'assistant_end', from)).toMatchObject({
      interrupted: true,
    });

    // The one worker takes the next call at once (the slow code would hold it for 40 s), and
    // the profile is as it was before the cancelled call.
    rig.llm.clearQueue();
    call('update_customer_loyalty_points', { points_to_add: 0 });
    const started = performance.now();
    await ws.turn('how many points?', 15_000);
    expect(performance.now() - started).toBeLessThan(10_000);
    const messages = rig.llm.requests.at(-1)!.body.messages;
    expect(points(messages.at(-1).content)).toBe(10);
    expect(messages).toContainEqual({
      role: 'tool',
      tool_call_id: 'call_slow_update',
      content: 'Error: cancelled',
    });
    ws.close();
  }, 60_000);
});
