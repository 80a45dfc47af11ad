import { randomSplit, rng, runParser as run } from '../../../test/support/qwen-vectors.js';
import { ToolCallTextParser } from './tool-call-text.parser.js';

// Output seen from real models and servers beyond the reference formats (README, "Beyond the
// reference formats"); through the running engine, the same cases are vectors in
// test/fixtures/qwen/other-references.json.
describe('drifted and leaked markup', () => {
  it('drops closing tags met in prose with nothing open, split any way; keeps the closer of a mentioned opener', () => {
    for (const [input, text] of [
      ['Done.\n</tool_call>', 'Done.\n'],
      ['a </function> b', 'a  b'],
      ['x</parameter>\n</function>\n</tool_call> y', 'x\n\n y'],
      ['thought</think>answer', 'thoughtanswer'],
      [
        'The tag <tool_call>here</tool_call> is literal.',
        'The tag <tool_call>here</tool_call> is literal.',
      ],
      ['html </b> and </td> stay', 'html </b> and </td> stay'],
      // Another tag mentioned in between does not make the mention's closer debris.
      [
        'The <tool_call> tag and the <tools> tag, then </tool_call> ends.',
        'The <tool_call> tag and the <tools> tag, then </tool_call> ends.',
      ],
      // A real call after the mention: the mention's closer can no longer come.
      [
        'The <tool_call> tag opens one. <tool_call>{"name":"now","arguments":{}}</tool_call> Done.</tool_call>',
        'The <tool_call> tag opens one.  Done.',
      ],
      [
        'A <tool_call> mention. <function=now>\n</function>\n</tool_call> Done.</tool_call>',
        'A <tool_call> mention.  Done.',
      ],
    ] as const) {
      expect(run([input]).text).toBe(text);
      expect(run([...input])).toEqual(run([input]));
      expect(run(randomSplit(input, rng(input.length)))).toEqual(run([input]));
    }
  });

  it('reads the name-tag variant (<function>NAME</function> then JSON arguments), split any way', () => {
    const call = '<tool_call>\n<function>terminal</function>\n{"command": "ls -la"}\n</tool_call>';
    for (const [input, calls] of [
      [`Checking.\n${call}`, [{ name: 'terminal', arguments: { command: 'ls -la' } }]],
      ['<tool_call><function>now</function></tool_call> ok', [{ name: 'now', arguments: {} }]],
    ] as const) {
      const whole = run([input]);
      expect(whole.calls).toEqual(calls);
      expect(whole.text).not.toMatch(/<|>/);
      expect(run([...input])).toEqual(whole);
      expect(run(randomSplit(input, rng(input.length)))).toEqual(whole);
    }
    // Not that variant: the opener stays prose.
    const prose = 'A <tool_call> tag and <function>x</function> here.';
    expect(run([prose]).text).toBe('A <tool_call> tag and <function>x here.');
    expect(run([...prose])).toEqual(run([prose]));
  });

  it("reads a Hermes block written as a Python dict, with a trailing comma, in OpenAI's shape or with flat arguments; drops one that is no call", () => {
    for (const body of [
      "{'name': 'get_weather', 'arguments': {'city': 'Paris', 'exact': True}}",
      '{"name": "get_weather", "arguments": {"city": "Paris", "exact": true,},}',
      '{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "exact": true}}}',
      '{"name": "get_weather", "city": "Paris", "exact": true}',
    ]) {
      const input = `Sure.<tool_call>\n${body}\n</tool_call>`;
      const whole = run([input]);
      expect(whole).toEqual({
        text: 'Sure.',
        reasoning: '',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris', exact: true } }],
      });
      expect(run([...input])).toEqual(whole);
    }
    expect(run(['<tool_call>\n{not a call}\n</tool_call>Ok.'])).toEqual({
      text: 'Ok.',
      reasoning: '',
      calls: [],
    });
  });

  it('mends a Hermes block whose JSON misses a brace or a quote before </tool_call>, and reads on', () => {
    for (const [input, text, calls] of [
      [
        '<tool_call>{"name":"a","arguments":{"x":1}</tool_call> ok',
        ' ok',
        [{ name: 'a', arguments: { x: 1 } }],
      ],
      [
        '<tool_call>{"name":"a","arguments":{"x":"bad</tool_call>\nThen <tool_call>{"name":"b","arguments":{"y":1}}</tool_call> done.',
        '\nThen  done.',
        [
          { name: 'a', arguments: { x: 'bad' } },
          { name: 'b', arguments: { y: 1 } },
        ],
      ],
    ] as const) {
      const whole = run([input]);
      expect(whole).toEqual({ text, reasoning: '', calls });
      expect(run([...input])).toEqual(whole);
      expect(run(randomSplit(input, rng(input.length)))).toEqual(whole);
    }
    // A closer outside any string settles the block at once: the text after it is not held.
    const parser = new ToolCallTextParser();
    const events = [...'<tool_call>{"name":"a","arguments":{"x":1}</tool_call> and more'].flatMap(
      (c) => parser.push(c),
    );
    expect(events.filter((e) => e.type === 'call')).toHaveLength(1);
    expect(events.map((e) => (e.type === 'text' ? e.text : '')).join('')).toBe(' and more');
  });

  it('reads every call of a Hermes block holding several: objects in a row, an array, a fenced body', () => {
    const a = { name: 'a', arguments: {} };
    const b = { name: 'b', arguments: { x: 1 } };
    for (const input of [
      '<tool_call>\n{"name":"a","arguments":{}}\n{"name":"b","arguments":{"x":1}}\n</tool_call>',
      '<tool_call>{"name":"a","arguments":{}}, {"name":"b","arguments":{"x":1}}</tool_call>',
      '<tool_call>\n[{"name":"a","arguments":{}}, {"name":"b","arguments":{"x":1}}]\n</tool_call>',
      '<tool_call>\n```json\n[{"name":"a","arguments":{}}, {"name":"b","arguments":{"x":1}}]\n```\n</tool_call>',
      // The name as the object's one key, the arguments its value; LangChain's keys.
      '<tool_call>[{"a": {}}, {"tool": "b", "tool_input": {"x": 1}}]</tool_call>',
    ]) {
      const whole = run([input]);
      expect(whole).toEqual({ text: '', reasoning: '', calls: [a, b] });
      expect(run([...input])).toEqual(whole);
      expect(run(randomSplit(input, rng(input.length)))).toEqual(whole);
    }
    // Cut off by the end of the output inside the second: the first stands.
    expect(run(['<tool_call>{"name":"a","arguments":{}}\n{"name":"b","argu']).calls).toEqual([a]);
    // A mention followed by a backtick or a bracket of prose stays text.
    for (const prose of ['The `<tool_call>` tag.', 'A <tool_call> [sic] tag.'])
      expect(run([...prose]).text).toBe(prose);
  });

  it("reads Qwen2.5-Coder's <tools>JSON</tools> blocks; a <tools> in prose stays text", () => {
    const a = { name: 'a', arguments: { x: 1 } };
    for (const [input, text, calls] of [
      ['<tools>\n{"name": "a", "arguments": {"x": 1}}\n</tools> ok', ' ok', [a]],
      [
        '<tools>\n[{"name": "a", "arguments": {"x": 1}}, {"name": "a", "parameters": {"x": 1}}]\n</tools>',
        '',
        [a, a],
      ],
      [
        'Functions are listed within <tools></tools> tags.',
        'Functions are listed within <tools></tools> tags.',
        [],
      ],
    ] as const) {
      const whole = run([input]);
      expect(whole).toEqual({ text, reasoning: '', calls });
      expect(run([...input])).toEqual(whole);
      expect(run(randomSplit(input, rng(input.length)))).toEqual(whole);
    }
  });

  it('ends the answer at an end-of-turn token, and drops the turn the model goes on to write', () => {
    for (const [input, text] of [
      ['It is sunny.<|im_end|>\n<|im_start|>user\nThanks!<|im_end|>', 'It is sunny.'],
      ['Answer.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nmore', 'Answer.'],
      ['Done.<|endoftext|>', 'Done.'],
      ['a <| b and x<|y are prose', 'a <| b and x<|y are prose'],
      // A header restating the assistant's own turn is dropped; the answer goes on.
      ['<|im_start|>assistant\nHello.<|im_end|>', 'Hello.'],
      ['<|start_header_id|>assistant<|end_header_id|>\n\nHi.<|eot_id|>', 'Hi.'],
      ['Yes.<|start_header_id|>user<|end_header_id|>\n\nno', 'Yes.'],
    ] as const) {
      expect(run([input])).toEqual({ text, reasoning: '', calls: [] });
      expect(run([...input])).toEqual(run([input]));
    }
    const call =
      '<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>';
    // A call before the token stands; one in the turn written after it is no call of this answer.
    expect(run([`${call}<|im_end|>\n<|im_start|>assistant\n${call}`]).calls).toEqual([
      { name: 'f', arguments: { x: '1' } },
    ]);
  });

  it('drops a stray <function_invocation> wrapper and doubled closers around a call', () => {
    const input =
      '<function_invocation>\n<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</function>\n</function_invocation>\n</tool_call>';
    const whole = run([input]);
    expect(whole.calls).toEqual([{ name: 'f', arguments: { x: '1' } }]);
    expect(whole.text.trim()).toBe('');
    expect(run([...input])).toEqual(whole);
  });

  it('trims a CRLF around values as it trims a newline', () => {
    const input =
      '<tool_call>\r\n<function=f>\r\n<parameter=x>\r\nline one\r\nline two\r\n</parameter>\r\n</function>\r\n</tool_call>';
    expect(run([input]).calls).toEqual([{ name: 'f', arguments: { x: 'line one\r\nline two' } }]);
    expect(run([...input])).toEqual(run([input]));
  });
  it("reads Llama 3.1's <function=NAME>{arguments}</function>, bare or wrapped, split any way", () => {
    const weather = { name: 'get_weather', arguments: { city: 'Paris', days: 2 } };
    for (const [input, text, calls] of [
      ['<function=get_weather>{"city": "Paris", "days": 2}</function>', '', [weather]],
      [
        'Sure. <function=get_weather>{"city": "Paris", "days": 2}</function> Done.',
        'Sure.  Done.',
        [weather],
      ],
      [
        '<tool_call>\n<function=get_weather>\n{"city": "Paris", "days": 2}\n</function>\n</tool_call>',
        '',
        [weather],
      ],
      // A closing tag inside a JSON string is text of the value.
      [
        '<function=note>{"text": "a </function> b"}</function>',
        '',
        [{ name: 'note', arguments: { text: 'a </function> b' } }],
      ],
      // Cut off by the end of the output: what the JSON holds so far is mended.
      [
        '<function=get_weather>{"city": "Paris"',
        '',
        [{ name: 'get_weather', arguments: { city: 'Paris' } }],
      ],
    ] as const) {
      const whole = run([input]);
      expect(whole).toEqual({ text, reasoning: '', calls });
      expect(run([...input])).toEqual(whole);
      expect(run(randomSplit(input, rng(input.length)))).toEqual(whole);
    }
  });

  it('keeps a <function= mentioned in prose as text, and sends the prose after it before the end', () => {
    for (const input of [
      'Use <function=name> tags like this.',
      'The tag <function=foo is documented here.',
      'Write <function=get_weather> and then the arguments.',
    ]) {
      expect(run([input])).toEqual({ text: input, reasoning: '', calls: [] });
      expect(run([...input])).toEqual(run([input]));
      const parser = new ToolCallTextParser();
      const early = [...input]
        .flatMap((c) => parser.push(c))
        .map((e) => (e.type === 'text' ? e.text : ''))
        .join('');
      expect(early.length).toBeGreaterThanOrEqual(input.length - 1);
    }
  });

  it('reads quoted names (<function="NAME">, <parameter="K">)', () => {
    const input = '<function="get_weather">\n<parameter="city">\nRome\n</parameter>\n</function>';
    expect(run([input]).calls).toEqual([{ name: 'get_weather', arguments: { city: 'Rome' } }]);
    expect(run([...input])).toEqual(run([input]));
  });
});
