import { getEventListeners } from 'node:events';
import { snapshotOf } from '../tools/tool-definition.js';
import { ToolExecutor, type ToolInvocation, type ToolOutcome } from '../tools/tool-executor.js';
import { Session } from './session.js';
import { StreamedText } from '../llm/streamed-text.js';
import { roundTextEnded, runCalls, showText, type TurnContext } from './turn-context.js';

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
      await runCalls(new AnsweringExecutor(), ctx, { text: '', calls });
    }
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
    expect(session.history.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'call_14_0', content: 'done call_14_0' },
      { role: 'tool', tool_call_id: 'call_14_1', content: 'done call_14_1' },
    ]);
    expect(events.filter((e) => (e as { type: string }).type === 'tool_result')).toHaveLength(30);
  });
});

describe('showText', () => {
  const turn = () => {
    const sent: string[] = [];
    const ctx = {
      visible: new StreamedText(),
      pendingWs: '',
      afterCallWs: '',
      wsMode: 'held',
      emit: (e: { text: string }) => sent.push(e.text),
    } as unknown as TurnContext;
    return { ctx, sent };
  };

  it('never begins the answer with whitespace, and sends whitespace only before visible text', () => {
    const { ctx, sent } = turn();
    for (const delta of ['\n', '  Hello', ' ', '\n', 'there.', '\n\n']) showText(ctx, delta);
    expect(sent).toEqual(['Hello', ' \nthere.']);
    expect(ctx.visible.toString()).toBe('Hello \nthere.');
  });

  it('keeps the layout around a call when text follows it in the same round', () => {
    const { ctx, sent } = turn();
    showText(ctx, 'Let me check.');
    showText(ctx, '\n\n');
    ctx.wsMode = 'afterCall'; // the call, written here, is not text
    showText(ctx, '\n');
    showText(ctx, 'Meanwhile, a tip.');
    expect(sent).toEqual(['Let me check.', '\n\n\nMeanwhile, a tip.']);
  });

  it('drops the whitespace a new round starts with: the rounds are joined by what was held', () => {
    const { ctx, sent } = turn();
    showText(ctx, 'Checking.');
    ctx.pendingWs = ' ';
    ctx.wsMode = 'roundStart';
    showText(ctx, '\n\n');
    showText(ctx, '\nIt is sunny.');
    expect(sent).toEqual(['Checking.', ' It is sunny.']);
  });

  it('joins two rounds with a space, or with nothing after CJK text or whitespace held', () => {
    const joinedText = (first: string, held: string, second: string) => {
      const { ctx, sent } = turn();
      showText(ctx, first);
      if (held) showText(ctx, held);
      roundTextEnded(ctx);
      showText(ctx, second);
      return sent.join('');
    };
    expect(joinedText('Let me check.', '', 'It is sunny.')).toBe('Let me check. It is sunny.');
    expect(joinedText('Let me check.', '\n', 'It is sunny.')).toBe('Let me check.\nIt is sunny.');
    expect(joinedText('查一下。', '', '晴天。')).toBe('查一下。晴天。');
  });
});
