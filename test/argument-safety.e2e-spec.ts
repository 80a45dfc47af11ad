import { sseRawArgumentsCall, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useTurnHarness, xmlCall } from './support/turn-harness.js';

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

/** An id longer than a JavaScript number holds (2^53), declared as a string. */
const LONG_ID = '12345678901234567890123';

describe('a long id declared as a string', () => {
  const h = useTurnHarness();

  it.each([
    ['a Qwen3-Coder XML value', () => sseText([xmlCall('get_weather', { city: LONG_ID })])],
    [
      'a Hermes block',
      () =>
        sseText([
          `<tool_call>{"name": "get_weather", "arguments": {"city": "${LONG_ID}"}}</tool_call>`,
        ]),
    ],
    [
      'structured tool_calls',
      () =>
        sseStructuredCalls([{ id: 'call_1', name: 'get_weather', arguments: { city: LONG_ID } }]),
    ],
    // Written without quotes, as models do with ids: JSON.parse would change its last digits.
    [
      'a number in a Hermes block',
      () =>
        sseText([
          `<tool_call>{"name": "get_weather", "arguments": {"city": ${LONG_ID}}}</tool_call>`,
        ]),
    ],
    [
      'a number in structured tool_calls',
      () => sseRawArgumentsCall('get_weather', `{"city": ${LONG_ID}}`),
    ],
    [
      'a number in a Python-style dict',
      () =>
        sseText([
          `<tool_call>{'name': 'get_weather', 'arguments': {'city': ${LONG_ID}}}</tool_call>`,
        ]),
    ],
  ])('reaches the tool digit for digit, written as %s', async (_, script) => {
    h.llm.enqueue(script(), sseText(['Done.']));
    await h.ws.turn('Look it up.');
    expect(h.tools.requests.map((r) => r.path)).toEqual([`/${LONG_ID}`]);
    expect(h.llm.requests[1]!.body.messages.at(-2).tool_calls[0].function.arguments).toBe(
      JSON.stringify({ city: LONG_ID }),
    );
  });
});

describe('arguments nested far too deep (a model stuck repeating "[")', () => {
  const h = useTurnHarness();

  it('are no call: the tool is not called, the model is told why, the session goes on', async () => {
    const deep = `{"city": ${'['.repeat(30_000)}${']'.repeat(30_000)}}`;
    h.llm.enqueue(sseRawArgumentsCall('get_weather', deep), sseText(['Sorry.']));
    const msgs = await h.ws.turn('Weather?');
    expect(msgs.find((m) => m.type === 'tool_call')).toMatchObject({ arguments: {} });
    expect(h.tools.requests).toHaveLength(0);
    expect(h.llm.requests[1]!.body.messages.at(-1).content).toBe(
      'Error: tool request failed: arguments are not a JSON object: (arguments nested more than 100 levels deep)',
    );
    expect(msgs.at(-1)).toMatchObject({ type: 'assistant_end', text: 'Sorry.' });
    h.llm.enqueue(sseText(['Hello again.']));
    expect((await h.ws.turn('Hi')).at(-1)).toMatchObject({ text: 'Hello again.' });
  });
});

describe('a lone surrogate in an argument (the JSON escape "\\ud800", half a character)', () => {
  const h = useTurnHarness();

  it.each([
    ['structured tool_calls', () => sseRawArgumentsCall('get_weather', '{"city": "Lima\\ud800"}')],
    [
      'a Hermes block',
      () =>
        sseText([
          '<tool_call>{"name": "get_weather", "arguments": {"city": "Lima\\udc00"}}</tool_call>',
        ]),
    ],
  ])('reaches the tool as U+FFFD, written as %s, and the turn goes on', async (_, script) => {
    h.llm.enqueue(script(), sseText(['Sunny in Lima.']));
    const msgs = await h.ws.turn('Weather in Lima?');
    expect(h.tools.requests.map((r) => r.path)).toEqual(['/Lima%EF%BF%BD']);
    expect(msgs.filter((m) => m.type !== 'assistant_delta').map((m) => m.type)).toEqual([
      'tool_call',
      'tool_result',
      'assistant_end',
    ]);
    expect(msgs.find((m) => m.type === 'tool_result')).toMatchObject({ ok: true });
    expect(h.llm.requests[1]!.body.messages.at(-1).content).toBe('Lima\ufffd: ☀️ +21°C');
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Sunny in Lima.' });
  });

  it("sends a user's text cut mid-emoji as U+FFFD, which the server can encode, this turn and the next", async () => {
    h.llm.enqueue(sseText(['Nice.']), sseText(['Sure.']));
    // A client that cut its text by UTF-16 length: half of 😀 ('\ud83d\ude00').
    expect((await h.ws.turn('Look \ud83d')).at(-1)).toEqual({
      type: 'assistant_end',
      text: 'Nice.',
    });
    expect((await h.ws.turn('And?')).at(-1)).toEqual({ type: 'assistant_end', text: 'Sure.' });
    const users = (h.llm.requests[1]!.body.messages as { role: string; content: string }[])
      .filter((m) => m.role === 'user')
      .map((m) => m.content);
    expect(users).toEqual(['Look \ufffd', 'And?']);
    // And so it comes back to a client asking for the conversation (one printing it in UTF-8).
    h.ws.send({ type: 'history' });
    const history = await h.ws.waitFor((m) => m.type === 'history');
    expect(history.messages[0]).toEqual({ role: 'user', text: 'Look \ufffd' });
  });
});
