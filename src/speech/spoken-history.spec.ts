import type { ChatMessage } from '../llm/llm.types.js';
import { keepSpokenOnly, saidMessages } from './spoken-history.js';

const user: ChatMessage = { role: 'user', content: 'Weather?' };

describe('keepSpokenOnly', () => {
  it('keeps the answer up to the end of the last sentence heard', () => {
    const history: ChatMessage[] = [
      user,
      { role: 'assistant', content: 'It is sunny. It is warm. Take a hat.' },
    ];
    expect(keepSpokenOnly(history, ['It is sunny.', 'It is warm.'])).toEqual([
      user,
      { role: 'assistant', content: 'It is sunny. It is warm.' },
    ]);
  });

  it('keeps a call with its tool message, and finds a sentence spoken across two rounds', () => {
    const call = { id: 'c1', type: 'function' as const, function: { name: 'w', arguments: '{}' } };
    const history: ChatMessage[] = [
      user,
      { role: 'assistant', content: 'Let me check', tool_calls: [call] },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
      { role: 'assistant', content: 'It is sunny. Enjoy.' },
    ];
    // The client heard "Let me check It is sunny." (the rounds joined by a space).
    expect(keepSpokenOnly(history, ['Let me check It is sunny.'])).toEqual([
      user,
      { role: 'assistant', content: 'Let me check', tool_calls: [call] },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
      { role: 'assistant', content: 'It is sunny.' },
    ]);
    expect(keepSpokenOnly(history, ['Nothing like it.'])).toEqual([
      user,
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    ]);
  });

  it('keeps an answer heard whole when what the agent was made to say after it is cut', () => {
    const said: ChatMessage = { role: 'assistant', content: 'Anything else? I can book a table.' };
    saidMessages.add(said);
    const history: ChatMessage[] = [user, { role: 'assistant', content: 'It is sunny.' }, said];
    expect(keepSpokenOnly(history, ['Anything else?'])).toEqual([
      user,
      { role: 'assistant', content: 'It is sunny.' },
      { role: 'assistant', content: 'Anything else?' },
    ]);
    expect(keepSpokenOnly(history, [])).toEqual([
      user,
      { role: 'assistant', content: 'It is sunny.' },
    ]);
  });
});
