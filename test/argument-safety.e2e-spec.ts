import { sseText } from './support/fake-llm.js';
import { useTurnHarness } from './support/turn-harness.js';

const REFUSED = 'is not allowed (it would change object prototypes in a JavaScript backend)';

describe('arguments that would pollute prototypes (model steered by what it read)', () => {
  const h = useTurnHarness();

  it.each([
    [
      'an XML parameter named __proto__ (once lent the call its values)',
      '<tool_call>\n<function=get_weather>\n<parameter=__proto__>\n{"city": "evil"}\n</parameter>\n</function>\n</tool_call>',
      'arguments/__proto__',
    ],
    [
      'a Hermes call with constructor.prototype',
      '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome", "constructor": {"prototype": {"admin": true}}}}</tool_call>',
      'arguments/constructor',
    ],
    [
      'a nested __proto__ in a call written as JSON arguments',
      '<function=get_weather>{"city": "Rome", "opts": {"__proto__": {"admin": true}}}</function>',
      'arguments/opts/__proto__',
    ],
  ])('refuses %s: the tool is not called, the model is told why', async (_, call, path) => {
    h.llm.enqueue(sseText([call]), sseText(['Sorry.']));
    const msgs = await h.ws.turn('Weather?');
    expect(msgs.find((m) => m.type === 'tool_result')).toMatchObject({ ok: false });
    expect(h.tools.requests).toHaveLength(0);
    expect(h.llm.requests[1]!.body.messages.at(-1).content).toBe(
      `Error: tool request failed: invalid arguments: ${path} ${REFUSED}`,
    );
    expect(msgs.at(-1)).toMatchObject({ type: 'assistant_end', text: 'Sorry.' });
  });
});
