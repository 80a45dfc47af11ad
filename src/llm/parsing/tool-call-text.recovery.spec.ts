import { randomSplit, rng, runParser as run } from '../../../test/support/qwen-vectors.js';

// Malformed Qwen3-Coder output recovered, from the tests of a client-side Qwen3-Coder parser
// (minpeter/ai-sdk-tool-call-middleware); through the running engine, the same cases are vectors
// in test/fixtures/qwen/other-references.json.
describe('malformed Qwen3-Coder calls', () => {
  it('ends a call whose </function> was left out where the next call of an active tool begins', () => {
    const schemas = new Map([
      ['alpha', { type: 'object', properties: { x: { type: 'string' } } }],
      ['beta', { type: 'object', properties: { y: { type: 'string' } } }],
    ]);
    const calls = [
      { name: 'alpha', arguments: { x: '1' } },
      { name: 'beta', arguments: { y: '2' } },
    ];
    for (const input of [
      '<tool_call><function=alpha><parameter=x>1</parameter><function=beta><parameter=y>2</parameter></function></tool_call>',
      '<tool_call><function=alpha><parameter=x>1</parameter><function=beta><parameter=y>2</parameter></tool_call>',
      '<tool_call>\n<function=alpha>\n<parameter=x>\n1\n</parameter>\n<tool_call>\n<function=beta>\n<parameter=y>\n2\n</parameter>\n</function>\n</tool_call>',
    ]) {
      const whole = run([input], schemas);
      expect(whole).toEqual({ text: '', reasoning: '', calls });
      expect(run([...input], schemas)).toEqual(whole);
      expect(run(randomSplit(input, rng(input.length)), schemas)).toEqual(whole);
    }
    // Not a tool of this conversation: text inside the value, as before.
    const literal = '<function=alpha><parameter=x>a</parameter><function=other></function>';
    expect(run([literal], schemas).calls).toEqual([
      { name: 'alpha', arguments: { x: 'a</parameter><function=other>' } },
    ]);
  });

  it('makes a call of a name with spaces inside <tool_call>, so the model hears it is unknown; one in prose stays text', () => {
    const schemas = new Map([
      ['get_weather', { type: 'object', properties: { city: { type: 'string' } } }],
    ]);
    const input =
      'Sure. <tool_call>\n<function=get weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>';
    const whole = run([input], schemas);
    expect(whole).toEqual({
      text: 'Sure. ',
      reasoning: '',
      calls: [{ name: 'get weather', arguments: { city: 'Paris' } }],
    });
    expect(run([...input], schemas)).toEqual(whole);
    expect(run(randomSplit(input, rng(input.length)), schemas)).toEqual(whole);
    const mention = 'Write <function=get weather> to call it.';
    expect(run([mention], schemas)).toEqual({ text: mention, reasoning: '', calls: [] });
    // A template's placeholder leaked into the text is no call, wrapped or not.
    expect(
      run(['<tool_call><function={{ tc.name }}></function></tool_call>'], schemas).calls,
    ).toEqual([]);
  });

  it('ends the value of a call never closed at its last </parameter>, and sends the prose after it', () => {
    const schemas = new Map([
      ['get_weather', { type: 'object', properties: { city: { type: 'string' } } }],
    ]);
    const input = 'Checking. <function=get_weather><parameter=city>Busan</parameter> One moment.';
    const whole = run([input], schemas);
    expect(whole).toEqual({
      text: 'Checking.  One moment.',
      reasoning: '',
      calls: [{ name: 'get_weather', arguments: { city: 'Busan' } }],
    });
    expect(run([...input], schemas)).toEqual(whole);
    expect(run(randomSplit(input, rng(input.length)), schemas)).toEqual(whole);
  });

  it('drops a block that opens with a tag beginning no call (no function name, no function) as markup', () => {
    for (const [input, text] of [
      ['<tool_call><function><parameter=x>1</parameter></tool_call>AFTER', 'AFTER'],
      ['before <tool_call><parameter=x>1</parameter></tool_call> after', 'before  after'],
      ['a <tool_call></tool_call> b', 'a  b'],
      ['cut <tool_call>\n<parameter=x>\n1', 'cut '],
    ] as const) {
      expect(run([input])).toEqual({ text, reasoning: '', calls: [] });
      expect(run([...input])).toEqual(run([input]));
      expect(run(randomSplit(input, rng(input.length)))).toEqual(run([input]));
    }
    // A mention followed by words, or by a comparison, is still prose.
    for (const prose of ['The <tool_call> tag wraps a call.', 'Write <tool_call> <3 times.'])
      expect(run([...prose]).text).toBe(prose);
  });
});

describe('malformed Hermes blocks', () => {
  it('reads a call with a closing brace too many, the stray brace kept out of the text, split any way', () => {
    for (const input of [
      'Done. <tool_call>{"name":"write","arguments":{"path":"/tmp/a"}}}</tool_call>',
      'Done. <tool_call>\n{"name": "write", "arguments": {"path": "/tmp/a"}}\n}\n</tool_call>',
      'Done. <tool_call>[{"name":"write","arguments":{"path":"/tmp/a"}}]]</tool_call>',
    ]) {
      const whole = run([input]);
      expect(whole).toEqual({
        text: 'Done. ',
        reasoning: '',
        calls: [{ name: 'write', arguments: { path: '/tmp/a' } }],
      });
      expect(run([...input])).toEqual(whole);
      expect(run(randomSplit(input, rng(input.length)))).toEqual(whole);
    }
  });

  it('repairs quotes left unescaped inside a string value', () => {
    const input =
      '<tool_call>{"name":"edit","arguments":{"content":"He said "hello" to me","n":2}}</tool_call>';
    expect(run([...input]).calls).toEqual([
      { name: 'edit', arguments: { content: 'He said "hello" to me', n: 2 } },
    ]);
  });
});
