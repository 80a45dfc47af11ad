import { CompletionDecoder } from './completion-decoder.js';
import type { LlmEvent } from './llm.types.js';

/** What a client is shown (text) and what is kept apart (reasoning) from some chunks. */
function read(chunks: unknown[]): { text: string; reasoning: string } {
  const decoder = new CompletionDecoder(new Map());
  const events: LlmEvent[] = [...chunks.flatMap((c) => decoder.chunk(c)), ...decoder.end()];
  const join = (type: 'text' | 'reasoning') =>
    events.map((e) => (e.type === type ? e.text : '')).join('');
  return { text: join('text'), reasoning: join('reasoning') };
}
const delta = (content: unknown) => ({ choices: [{ index: 0, delta: { content } }] });

describe('content given as a list of parts (Mistral API, Magistral)', () => {
  it('shows the text parts and keeps the thinking parts apart, streamed or whole', () => {
    expect(
      read([
        delta([{ type: 'thinking', thinking: [{ type: 'text', text: 'The user greets me.' }] }]),
        delta([{ type: 'text', text: 'Hello' }]),
        delta(' there.'),
      ]),
    ).toEqual({ text: 'Hello there.', reasoning: 'The user greets me.' });
    const decoder = new CompletionDecoder(new Map());
    const reply = decoder.reply({
      choices: [
        {
          message: {
            content: [
              { type: 'thinking', thinking: 'Short.' },
              { type: 'text', text: 'Hi!' },
            ],
          },
          finish_reason: 'stop',
        },
      ],
    });
    expect(reply.filter((e) => e.type === 'text')).toEqual([{ type: 'text', text: 'Hi!' }]);
  });

  it('reads untyped text parts, shows no other kind of part, and passes over what is not a part', () => {
    expect(
      read([
        delta([
          null,
          'stray',
          { text: 'Plain ' },
          { type: 'image_url', image_url: { url: 'data:,' } },
          { type: 'text', text: 'words.' },
          {
            type: 'thinking',
            thinking: [{ type: 'text', text: 'Quiet ' }, null, { text: 'thought.' }],
          },
          { type: 'text', text: 42 },
        ]),
      ]),
    ).toEqual({ text: 'Plain words.', reasoning: 'Quiet thought.' });
  });
});
