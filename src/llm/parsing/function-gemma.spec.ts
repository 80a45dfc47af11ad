import { CompletionDecoder } from '../completion-decoder.js';
import type { LlmEvent } from '../llm.types.js';
import { decodeContent, piecesOf } from '../../../test/support/decode.js';

const schemas = new Map([
  ['get_weather', { type: 'object', properties: { city: { type: 'string' } } }],
  ['book', { type: 'object', properties: { party: { type: 'object' } } }],
]);
const run = (content: string, size: number) => decodeContent(schemas, piecesOf(content, size));
const call = (body: string) => `<start_function_call>call:${body}<end_function_call>`;

// FunctionGemma from a server without its parser that sends special tokens (vectors after
// vLLM's and llama.cpp's functiongemma parser tests).
describe("FunctionGemma's calls", () => {
  it.each([1, 5, 1000])('are read with typed values, fed %i characters at a time', (size) => {
    expect(run(call('get_weather{city:<escape>Paris, France<escape>}'), size)).toEqual({
      calls: [['get_weather', { city: 'Paris, France' }]],
      text: '',
    });
    const nested =
      'book{party:{size:4,names:[<escape>Ada<escape>,<escape>Bo}b<escape>],vip:true,note:null},when:<escape>7pm<escape>}';
    expect(run(`Booking now. ${call(nested)}`, size)).toEqual({
      calls: [
        [
          'book',
          {
            party: { size: 4, names: ['Ada', 'Bo}b'], vip: true, note: null },
            when: '7pm',
          },
        ],
      ],
      text: 'Booking now. ',
    });
    const two = call('get_weather{city:<escape>Rome<escape>}') + call('get_weather{}');
    expect(run(two, size).calls).toEqual([
      ['get_weather', { city: 'Rome' }],
      ['get_weather', {}],
    ]);
  });

  it('ends the answer at <start_function_response>, where the model would write the result itself', () => {
    const text = `${call('get_weather{city:<escape>Paris<escape>}')}<start_function_response>response:get_weather{temp:20}<end_function_response>It is 20 degrees.`;
    for (const size of [1, 7, 1000])
      expect(run(text, size)).toEqual({ calls: [['get_weather', { city: 'Paris' }]], text: '' });
  });

  it('does not run a call cut off by the token limit', () => {
    const decoder = new CompletionDecoder(schemas);
    const events: LlmEvent[] = [];
    for (const content of piecesOf('<start_function_call>call:get_weather{city:<escape>Par', 4))
      events.push(...decoder.chunk({ choices: [{ index: 0, delta: { content } }] }));
    events.push(...decoder.chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }] }));
    events.push(...decoder.end());
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([
      expect.objectContaining({ name: 'get_weather', cutOff: true }),
    ]);
  });
});
