import { StreamedText } from '../llm/streamed-text.js';
import { roundTextEnded, showText, type TurnContext } from './turn-context.js';

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
