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

  // Each text dialect's call, cut in its last value, and the same call closed.
  const ARGS = '{"to": "+1555", "text": "Your booking is confirmed."}';
  const GLM_ARGS = '<arg_key>to</arg_key><arg_value>+1555</arg_value><arg_key>text</arg_key>';
  it.each([
    ['Hermes', `<tool_call>\n{"name": "send_sms", "arguments": ${ARGS}}\n</tool_call>`],
    [
      'GLM',
      `<tool_call>send_sms\n${GLM_ARGS}<arg_value>Your booking is confirmed.</arg_value></tool_call>`,
    ],
    ['Mistral', `[TOOL_CALLS]send_sms[ARGS]${ARGS}`],
    ['Mistral without its tokens', `send_sms${ARGS}`],
    ['Kimi without its tokens', `functions.send_sms:0${ARGS}`],
    [
      'DeepSeek',
      `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>send_sms<｜tool▁sep｜>${ARGS}<｜tool▁call▁end｜>`,
    ],
    [
      'Kimi',
      `<|tool_call_begin|>functions.send_sms:0<|tool_call_argument_begin|>${ARGS}<|tool_call_end|>`,
    ],
    [
      'invoke',
      '<invoke name="send_sms"><parameter name="to">+1555</parameter><parameter name="text">Your booking is confirmed.</parameter></invoke>',
    ],
    ['bare JSON', `{"name": "send_sms", "arguments": ${ARGS}}`],
    ['bare JSON after prose', `Sending it. {"name": "send_sms", "arguments": ${ARGS}}`],
  ])('marks a %s call cut in its last value, not the same call closed', (_dialect, whole) => {
    const cut = whole.slice(0, whole.indexOf('confirmed.') + 'confir'.length);
    expect(calls([delta({ content: cut }), delta({}, 'length')])).toEqual([
      { name: 'send_sms', cutOff: true },
    ]);
    expect(calls([delta({ content: whole }), delta({}, 'length')])).toEqual([
      { name: 'send_sms', cutOff: false },
    ]);
    // Cut, but the output ended otherwise: what can be repaired of it runs, as before.
    expect(calls([delta({ content: cut }), delta({}, 'stop')])).toEqual([
      { name: 'send_sms', cutOff: false },
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
