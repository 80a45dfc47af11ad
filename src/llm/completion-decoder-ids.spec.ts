import { newCallId } from './call-ids.js';
import { CompletionDecoder } from './completion-decoder.js';
import type { LlmEvent } from './llm.types.js';

const schemas = new Map([
  ['search_web', { type: 'object', properties: { q: { type: 'string' } } }],
]);
/** One streamed chunk with structured calls numbered per response, as Kimi's `search_web:0`. */
const chunk = (...qs: string[]) => ({
  choices: [
    {
      index: 0,
      delta: {
        tool_calls: qs.map((q, index) => ({
          index,
          id: `search_web:${index}`,
          type: 'function',
          function: { name: 'search_web', arguments: JSON.stringify({ q }) },
        })),
      },
      finish_reason: 'tool_calls',
    },
  ],
});
const ids = (events: LlmEvent[]) => events.flatMap((e) => (e.type === 'tool_call' ? [e.id] : []));

describe('call ids across a conversation', () => {
  it("keeps a server's id unless the conversation already holds it", () => {
    const first = new CompletionDecoder(schemas);
    const round1 = ids([...first.chunk(chunk('a', 'b')), ...first.end()]);
    expect(round1).toEqual(['search_web:0', 'search_web:1']);
    // The next round numbers its calls from 0 again: both ids are taken by the first round.
    const next = new CompletionDecoder(schemas, { earlierIds: new Set(round1) });
    const round2 = ids([...next.chunk(chunk('c', 'd', 'e')), ...next.end()]);
    expect(round2).toHaveLength(3);
    expect(round2[2]).toBe('search_web:2');
    expect(new Set([...round1, ...round2]).size).toBe(5);
  });
});

describe('the ids the engine gives calls', () => {
  it('are 9 letters and digits (all Mistral templates take), a new one for each call', () => {
    const given = new Set(Array.from({ length: 1000 }, () => newCallId()));
    expect(given.size).toBe(1000);
    for (const id of given) expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
    // Every letter and digit turns up: the alphabet is used whole.
    expect(new Set([...given].join('')).size).toBe(62);
  });
});
