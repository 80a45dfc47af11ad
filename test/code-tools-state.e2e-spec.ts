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

const REMEMBER = `def remember(key: str, value: str) -> dict:
    """Keeps a value in the session state."""
    context.state[key] = value
    return dict(context.state)
`;

const STATE_KEYS = `def state_keys() -> list:
    """The keys of the session state, with the length of each value."""
    return [[k, len(str(v))] for k, v in context.state.items()]
`;

/**
 * context.state when calls overlap. Calls of one round run in parallel: each one's changes are
 * kept. A barge-in while a Python code tool runs: the code is interrupted at once, its worker is
 * free for the next call, and what it changed in context.state is not kept (the model is told the
 * call was cancelled).
 */
describe('code tools: session state with parallel and cancelled calls', () => {
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([
      { type: 'python', code: readFileSync('test/fixtures/code-tools/loyalty.py', 'utf8') },
      { type: 'python', code: SLOW_UPDATE, timeout_secs: 60 },
      { type: 'python', code: REMEMBER },
      { type: 'python', code: STATE_KEYS },
      { type: 'python', code: REMEMBER.replace('remember', 'remember_later'), background: true },
    ]),
    CODE_TOOLS_WORKERS: '1',
  }));
  beforeEach(() => rig.llm.reset());

  /** Enqueues a call of `name` with `args`, then the model's answer after it. */
  const call = (name: string, args: Record<string, unknown> = {}) =>
    rig.llm.enqueue(
      sseStructuredCalls([{ id: `call_${name}`, name, arguments: args }]),
      sseText(['Done.']),
    );
  const points = (content: string) =>
    (JSON.parse(content) as { loyalty_points: number }).loyalty_points;

  it('keeps the changes of every call of a round, not only of the last to finish', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    rig.llm.enqueue(
      sseStructuredCalls([
        { id: 'call_a', name: 'remember', arguments: { key: 'city', value: 'Oslo' } },
        { id: 'call_b', name: 'remember', arguments: { key: 'plan', value: 'Gold' } },
        { id: 'call_c', name: 'update_customer_loyalty_points', arguments: { points_to_add: 3 } },
      ]),
      sseStructuredCalls([
        { id: 'call_d', name: 'remember', arguments: { key: 'lang', value: 'no' } },
      ]),
      sseText(['Done.']),
    );
    await ws.turn('remember all that', 30_000);
    const state = JSON.parse(rig.llm.requests[2]!.body.messages.at(-1).content);
    expect(state).toEqual({
      city: 'Oslo',
      plan: 'Gold',
      customer_profile: { email: null, loyalty_points: 3, plan: 'Standard' },
      lang: 'no',
    });
    ws.close();
  }, 60_000);

  it('keeps what a call run in the background changed, once its result is told', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    rig.llm.enqueue(
      sseStructuredCalls([
        { id: 'call_bg', name: 'remember_later', arguments: { key: 'ticket', value: 'T-1' } },
      ]),
      sseText(['Working on it.']),
      sseText(['Your ticket is T-1.']),
    );
    const first = await ws.turn('open a ticket', 30_000);
    expect(first.at(-1)).toEqual({ type: 'assistant_end', text: 'Working on it.' });
    const told = await ws.waitFor(
      (m) => m.type === 'assistant_end' && m.text === 'Your ticket is T-1.',
      0,
      30_000,
    );
    expect(ws.messages.indexOf(told)).toBeGreaterThan(ws.messages.indexOf(first.at(-1)!));
    expect(rig.llm.requests[2]!.body.messages.at(-1).content).toMatch(
      /^\[Not said by the user: the result of remember_later \(call call_bg\)[^\n]*\n\{"ticket":"T-1"\}$/,
    );
    call('state_keys');
    await ws.turn('what do you keep?', 30_000);
    expect(JSON.parse(rig.llm.requests.at(-1)!.body.messages.at(-1).content)).toContainEqual([
      'ticket',
      3,
    ]);
    ws.close();
  }, 60_000);

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

  it('refuses a change that would take the state past 1 MiB of JSON, keeping it as it was', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    rig.llm.enqueue(
      sseStructuredCalls([
        { id: 'call_a', name: 'remember', arguments: { key: 'a', value: 'x'.repeat(700_000) } },
      ]),
      sseStructuredCalls([
        { id: 'call_b', name: 'remember', arguments: { key: 'b', value: 'y'.repeat(400_000) } },
      ]),
      sseStructuredCalls([{ id: 'call_k', name: 'state_keys', arguments: {} }]),
      sseText(['Done.']),
    );
    await ws.turn('remember these', 30_000);
    const toolMessages = rig.llm.requests
      .at(-1)!
      .body.messages.filter((m: { role: string }) => m.role === 'tool')
      .map((m: { content: string }) => m.content);
    expect(toolMessages[1]).toMatch(
      /^Error: ValueError: context\.state would hold 11\d{5} characters of JSON, over the 1048576 a session keeps: the changes were not kept$/,
    );
    expect(JSON.parse(toolMessages[2])).toEqual([['a', 700_000]]);
    ws.close();
  }, 60_000);
});
