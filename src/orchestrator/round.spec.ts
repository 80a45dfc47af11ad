import { endWarning } from './round.js';

describe('endWarning', () => {
  const call = {
    type: 'tool_call',
    id: 'c',
    name: 'f',
    arguments: {},
    rawArguments: '{}',
    argumentsValid: true,
  } as const;

  it('tells of output cut off at the token limit, whatever came before', () => {
    for (const text of ['', 'It is sunny and'])
      expect(endWarning({ text, calls: [], finishReason: 'length' })).toBe(
        `the model's output was cut off at its token limit (finish_reason "length"): raise the server's max_tokens (LLM_EXTRA_BODY)`,
      );
  });

  it("tells of output a content filter stopped (Azure's, OpenAI's), whatever came before", () => {
    for (const text of ['', 'Here is how to'])
      expect(endWarning({ text, calls: [], finishReason: 'content_filter' })).toBe(
        `the server's content filter stopped the model's output (finish_reason "content_filter")`,
      );
  });

  it('tells of no answer at all, with the reason the server gave', () => {
    expect(endWarning({ text: '', calls: [], finishReason: 'stop' })).toBe(
      'the model gave no answer (finish_reason "stop")',
    );
    expect(endWarning({ text: '', calls: [] })).toBe(
      'the model gave no answer (finish_reason null)',
    );
  });

  it('says nothing of an answer, or of calls', () => {
    expect(endWarning({ text: 'Sunny.', calls: [], finishReason: 'stop' })).toBeUndefined();
    expect(endWarning({ text: '', calls: [call], finishReason: 'tool_calls' })).toBeUndefined();
  });
});
