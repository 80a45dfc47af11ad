import { getEventListeners } from 'node:events';
import { snapshotOf } from '../tools/tool-definition.js';
import { ToolExecutor, type ToolInvocation, type ToolOutcome } from '../tools/tool-executor.js';
import { Session } from './session.js';
import { TurnResults } from './repeated-calls.js';
import type { TurnContext } from './turn-context.js';
import { runCalls } from './run-calls.js';

/** Answers every call at once. */
class AnsweringExecutor extends ToolExecutor {
  execute(call: ToolInvocation): Promise<ToolOutcome> {
    return Promise.resolve({ ok: true, text: `done ${call.id}` });
  }
}

describe('runCalls', () => {
  it("keeps each round's results in call order, and leaves no listener on the turn's signal", async () => {
    const turn = new AbortController();
    const session = new Session();
    const events: unknown[] = [];
    const ctx = {
      session,
      snapshot: snapshotOf('none', []),
      started: new Map(),
      results: new TurnResults(true),
      keepReasoning: true,
      signal: turn.signal,
      callSignal: turn.signal,
      emit: (e: unknown) => events.push(e),
    } as unknown as TurnContext;
    for (let round = 0; round < 15; round++) {
      const calls = [0, 1].map((i) => ({
        type: 'tool_call' as const,
        id: `call_${round}_${i}`,
        name: 'x',
        arguments: {},
        rawArguments: '{}',
        argumentsValid: true,
      }));
      await runCalls(new AnsweringExecutor(), ctx, { text: '', calls, reasoning: '' });
    }
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
    expect(session.history.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'call_14_0', content: 'done call_14_0' },
      { role: 'tool', tool_call_id: 'call_14_1', content: 'done call_14_1' },
    ]);
    expect(events.filter((e) => (e as { type: string }).type === 'tool_result')).toHaveLength(30);
  });
});
