import { CompletionDecoder } from './completion-decoder.js';
import type { LlmEvent } from './llm.types.js';

const schemas = new Map([
  [
    'send_sms',
    { type: 'object', properties: { to: { type: 'string' }, text: { type: 'string' } } },
  ],
]);
const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});
const structured = (args: string, id = 'c1', index = 0) =>
  delta({
    tool_calls: [{ index, id, type: 'function', function: { name: 'send_sms', arguments: args } }],
  });
const CUT = '{"to": "+1555", "text": "Your booking is confir';
const WHOLE = '{"to": "+1555", "text": "Your booking is confirmed."}';
const XML_CUT =
  '<tool_call>\n<function=send_sms>\n<parameter=to>\n+1555\n</parameter>\n<parameter=text>\nYour booking is confir';

function calls(chunks: unknown[]): { name: string; cutOff: boolean }[] {
  const decoder = new CompletionDecoder(schemas);
  const events: LlmEvent[] = [...chunks.flatMap((c) => decoder.chunk(c)), ...decoder.end()];
  return events.flatMap((e) =>
    e.type === 'tool_call' ? [{ name: e.name, cutOff: e.cutOff === true }] : [],
  );
}

/**
 * A call still being written when the output reached the model's token limit: its arguments are
 * mended into JSON (an SMS cut mid-word would be sent as it is), so it is marked, not to run.
 */
describe('CompletionDecoder: calls cut off at the token limit', () => {
  it('marks a structured call whose JSON did not close, and an XML call with no closing tag', () => {
    expect(calls([structured(CUT), delta({}, 'length')])).toEqual([
      { name: 'send_sms', cutOff: true },
    ]);
    expect(calls([delta({ content: XML_CUT }), delta({}, 'length')])).toEqual([
      { name: 'send_sms', cutOff: true },
    ]);
  });

  it('marks only the call being written: the one before it had ended', () => {
    expect(
      calls([structured(WHOLE, 'c1', 0), structured(CUT, 'c2', 1), delta({}, 'length')]),
    ).toEqual([
      { name: 'send_sms', cutOff: false },
      { name: 'send_sms', cutOff: true },
    ]);
  });

  it('leaves an XML call that closed, though prose after it ran into the limit', () => {
    const closed = `${XML_CUT}med.\n</parameter>\n</function>\n</tool_call>\n`;
    expect(
      calls([delta({ content: closed }), delta({ content: 'I have sent' }), delta({}, 'length')]),
    ).toEqual([{ name: 'send_sms', cutOff: false }]);
    // Its `</function>` came, its `</tool_call>` not: its arguments are whole.
    for (const end of ['</function>', '</function>\n</tool'])
      expect(
        calls([delta({ content: `${XML_CUT}med.\n</parameter>\n${end}` }), delta({}, 'length')]),
      ).toEqual([{ name: 'send_sms', cutOff: false }]);
  });

  it('leaves a call whose JSON closed, and any call of an output that ended otherwise', () => {
    expect(calls([structured(WHOLE), delta({}, 'length')])).toEqual([
      { name: 'send_sms', cutOff: false },
    ]);
    expect(calls([structured(CUT), delta({}, 'tool_calls')])).toEqual([
      { name: 'send_sms', cutOff: false },
    ]);
  });

  it('marks the cut call of a non-streamed reply', () => {
    const decoder = new CompletionDecoder(schemas);
    const reply = {
      choices: [
        {
          message: { tool_calls: [{ id: 'c1', function: { name: 'send_sms', arguments: CUT } }] },
          finish_reason: 'length',
        },
      ],
    };
    expect(decoder.reply(reply).find((e) => e.type === 'tool_call')).toMatchObject({
      cutOff: true,
    });
    // A call in its text that closed, then more text the limit cut: the call had ended.
    const closed = {
      choices: [
        {
          message: {
            content: `${XML_CUT}med.\n</parameter>\n</function>\n</tool_call>\nI have sent`,
          },
          finish_reason: 'length',
        },
      ],
    };
    const events = new CompletionDecoder(schemas).reply(closed);
    expect(events.find((e) => e.type === 'tool_call')).not.toHaveProperty('cutOff');
  });
});
