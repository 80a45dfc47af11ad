import { samplingRequest } from './mcp-sampling.js';

const text = (t: string) => ({ type: 'text', text: t });

describe('samplingRequest', () => {
  it("keeps the conversation's turns, a message's text blocks joined, and the smaller max tokens", () => {
    const request = samplingRequest(
      {
        messages: [
          { role: 'user', content: [text('Orders:'), text('1 shipped')] },
          { role: 'assistant', content: text('Noted.') },
          { role: 'user', content: text('Summarize.') },
        ],
        maxTokens: 4000,
      },
      1024,
    );
    expect(request).toEqual({
      messages: [
        { role: 'user', content: 'Orders:\n1 shipped' },
        { role: 'assistant', content: 'Noted.' },
        { role: 'user', content: 'Summarize.' },
      ],
      tools: [],
      sampling: { maxTokens: 1024 },
    });
  });

  it('refuses tools, audio, other roles and a conversation without a user message', () => {
    const user = { role: 'user', content: text('Hi') };
    expect(samplingRequest({ messages: [user], maxTokens: 10, tools: [] }, 100)).toEqual({
      refused: 'the engine offers its model no tools in sampling',
    });
    const audio = { role: 'user', content: { type: 'audio', data: '', mimeType: 'audio/wav' } };
    expect(samplingRequest({ messages: [audio], maxTokens: 10 }, 100)).toEqual({
      refused: "audio content: the engine's model is given text only",
    });
    expect(
      samplingRequest({ messages: [{ role: 'tool', content: text('x') }], maxTokens: 10 }, 100),
    ).toEqual({ refused: 'a message of role "tool": only user and assistant' });
    const assistant = { role: 'assistant', content: text('Hello') };
    expect(samplingRequest({ messages: [assistant], maxTokens: 10 }, 100)).toEqual({
      refused: 'no user message to answer',
    });
  });
});
