import type { ChatMessage } from '../llm/llm.types.js';
import { resultMessage } from './background-calls.js';
import { noteMessage } from './notes.js';
import { seenHistory } from './seen-history.js';

const call = (id: string) => ({
  id,
  type: 'function' as const,
  function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
});

describe('seenHistory', () => {
  it("keeps the user's words and the answers as shown, not what the model alone reads", () => {
    const history: ChatMessage[] = [
      { role: 'user', content: noteMessage('The user is on the map page.', false) },
      { role: 'user', content: 'Weather in Rome?' },
      { role: 'assistant', content: 'Let me check.', tool_calls: [call('c1')] },
      { role: 'tool', tool_call_id: 'c1', content: 'Rome: sunny' },
      { role: 'assistant', content: null, tool_calls: [call('c2')] },
      { role: 'tool', tool_call_id: 'c2', content: 'Rome: sunny' },
      { role: 'assistant', content: 'It is sunny.' },
      // A said text after the answer is one of its own, as its assistant_end was.
      { role: 'assistant', content: 'Anything else?' },
      {
        role: 'user',
        content: resultMessage({ id: 'r', name: 'make_report', ok: true, ms: 5, text: '12 pages' }),
      },
      { role: 'assistant', content: 'Your report is ready.' },
      { role: 'user', content: '天気は?' },
      { role: 'assistant', content: '確認します。', tool_calls: [call('c3')] },
      { role: 'tool', tool_call_id: 'c3', content: 'ok' },
      { role: 'assistant', content: '晴れです。' },
      { role: 'user', content: 'Cut off' },
      { role: 'assistant', content: '  ' },
    ];
    expect(seenHistory(history)).toEqual([
      { role: 'user', text: 'Weather in Rome?' },
      { role: 'assistant', text: 'Let me check. It is sunny.' },
      { role: 'assistant', text: 'Anything else?' },
      { role: 'assistant', text: 'Your report is ready.' },
      { role: 'user', text: '天気は?' },
      { role: 'assistant', text: '確認します。晴れです。' },
      { role: 'user', text: 'Cut off' },
    ]);
  });
});
