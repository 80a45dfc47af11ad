import { CompletionDecoder } from './completion-decoder.js';
import type { LlmEvent } from './llm.types.js';
import { loadVectors } from '../../test/support/qwen-vectors.js';

const schemas = new Map([
  ['get_weather', { type: 'object', properties: { city: { type: 'string' } } }],
]);
const xml =
  '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>';
const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});
const calls = (events: LlmEvent[]) => events.filter((e) => e.type === 'tool_call');

function decode(chunks: unknown[]): LlmEvent[] {
  const decoder = new CompletionDecoder(schemas);
  return [...chunks.flatMap((c) => decoder.chunk(c)), ...decoder.end()];
}

describe('CompletionDecoder', () => {
  it('rescues a complete call written in reasoning_content when the content holds none', () => {
    const events = decode([
      delta({ reasoning_content: `I will call it: ${xml}` }),
      delta({ content: '' }, 'stop'),
    ]);
    expect(calls(events)).toEqual([
      expect.objectContaining({ name: 'get_weather', arguments: { city: 'Paris' } }),
    ]);
    expect(events.filter((e) => e.type === 'text')).toEqual([]);
  });

  it('rescues a call inside <think> in the content, and keeps the thought out of the text', () => {
    const events = decode([delta({ content: `<think>plan ${xml}</think>` }), delta({}, 'stop')]);
    expect(calls(events)).toHaveLength(1);
    expect(events.filter((e) => e.type === 'text')).toEqual([]);
  });

  it('drops the markup tail a server parser lets through after structured calls (">", "</tool_call>")', () => {
    // vLLM --tool-call-parser qwen3_coder with speculative decoding, as reported by its users:
    // the structured call, then content ">" (the end of </function>) and "\n</tool_call>".
    const events = decode([
      delta({ role: 'assistant', content: '' }),
      delta({
        tool_calls: [
          {
            index: 0,
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '{"city": "Paris"}' } }] }),
      delta({ content: '>' }),
      delta({ content: '\n</tool_call>' }),
      delta({}, 'tool_calls'),
    ]);
    expect(calls(events)).toEqual([
      expect.objectContaining({ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }),
    ]);
    const text = (list: LlmEvent[]) =>
      list
        .filter((e) => e.type === 'text')
        .map((e) => (e as { text: string }).text)
        .join('');
    // Layout whitespace may remain (the turn sends it only before visible text); nothing else.
    expect(text(events).trim()).toBe('');
    // Without structured calls, a '>' is text like any other.
    const plain = decode([delta({ content: '>' }), delta({ content: ' quoted' }, 'stop')]);
    expect(text(plain)).toBe('> quoted');
  });

  it('tells calls apart when the server leaves out tool_calls[].index', () => {
    const weather = (id: string, city: string) => ({
      id,
      type: 'function',
      function: { name: 'get_weather', arguments: JSON.stringify({ city }) },
    });
    // Whole calls, one per chunk, with ids.
    const whole = decode([
      delta({ tool_calls: [weather('a', 'Paris')] }),
      delta({ tool_calls: [weather('b', 'Rome')] }, 'tool_calls'),
    ]);
    expect(calls(whole).map((c) => [c.id, c.arguments])).toEqual([
      ['a', { city: 'Paris' }],
      ['b', { city: 'Rome' }],
    ]);
    // Arguments sent as an object rather than a JSON string.
    const asObject = decode([
      delta({
        tool_calls: [
          { index: 0, id: 'o', function: { name: 'get_weather', arguments: { city: 'Lima' } } },
        ],
      }),
      delta({}, 'tool_calls'),
    ]);
    expect(calls(asObject).map((c) => [c.id, c.arguments])).toEqual([['o', { city: 'Lima' }]]);
    // One call in fragments: the name once, then arguments only.
    const pieces = decode([
      delta({ tool_calls: [{ id: 'c', function: { name: 'get_weather', arguments: '' } }] }),
      delta({ tool_calls: [{ function: { arguments: '{"city": ' } }] }),
      delta({ tool_calls: [{ function: { arguments: '"Oslo"}' } }] }, 'tool_calls'),
    ]);
    expect(calls(pieces).map((c) => [c.id, c.arguments])).toEqual([['c', { city: 'Oslo' }]]);
  });

  it('gives parallel calls distinct ids when the server repeats one or sends none', () => {
    const call = (index: number, id: string, city: string) => ({
      index,
      id,
      type: 'function',
      function: { name: 'get_weather', arguments: JSON.stringify({ city }) },
    });
    const events = decode([
      delta({ tool_calls: [call(0, 'call_0', 'Paris'), call(1, 'call_0', 'Rome')] }),
      delta({ tool_calls: [call(2, '', 'Oslo')] }, 'tool_calls'),
    ]);
    const ids = calls(events).map((c) => (c as { id: string }).id);
    expect(ids[0]).toBe('call_0');
    expect(new Set(ids).size).toBe(3);
    expect(calls(events).map((c) => c.arguments)).toEqual([
      { city: 'Paris' },
      { city: 'Rome' },
      { city: 'Oslo' },
    ]);
  });

  it('maps a mangled tool name to the tool it means, and reads arguments encoded or sent twice', () => {
    const named = (name: string, args: string) =>
      calls(
        decode([
          delta({ tool_calls: [{ index: 0, id: 'x', function: { name, arguments: args } }] }),
          delta({}, 'tool_calls'),
        ]),
      ).map((c) => [c.name, c.arguments]);
    const paris = '{"city": "Paris"}';
    expect(named('get_weather<|channel|>commentary', paris)).toEqual([
      ['get_weather', { city: 'Paris' }],
    ]);
    expect(named('functions.get_weather', paris)).toEqual([['get_weather', { city: 'Paris' }]]);
    expect(named(' get_weather ', JSON.stringify(paris))).toEqual([
      ['get_weather', { city: 'Paris' }],
    ]);
    expect(named('get_weather', `${paris}${paris}`)).toEqual([['get_weather', { city: 'Paris' }]]);
    // Two different objects glued together are not one call's arguments.
    expect(named('get_weather', `${paris}{"city": "Rome"}`)).toEqual([['get_weather', {}]]);
    expect(named('default_api.get_weather', paris)).toEqual([['get_weather', { city: 'Paris' }]]);
    for (const written of ['getWeather', 'Get-Weather', 'GET WEATHER', 'functions.GetWeather'])
      expect(named(written, paris)).toEqual([['get_weather', { city: 'Paris' }]]);
    // A name that means no known tool is kept as written (the executor answers "unknown tool").
    expect(named('functions.other', paris)).toEqual([['functions.other', { city: 'Paris' }]]);
    expect(named('get_weathers', paris)).toEqual([['get_weathers', { city: 'Paris' }]]);
  });

  it('reads a reply that is nothing but a JSON call naming an active tool, split any way', () => {
    const text = (events: LlmEvent[]) =>
      events
        .filter((e) => e.type === 'text')
        .map((e) => (e as { text: string }).text)
        .join('');
    const run = (content: string, size: number) => {
      const pieces: unknown[] = [];
      for (let i = 0; i < content.length; i += size)
        pieces.push(delta({ content: content.slice(i, i + size) }));
      const events = decode([...pieces, delta({}, 'stop')]);
      return { calls: calls(events).map((c) => [c.name, c.arguments]), text: text(events) };
    };
    const paris = ['get_weather', { city: 'Paris' }];
    for (const size of [1, 3, 1000]) {
      expect(run('{"name": "get_weather", "arguments": {"city": "Paris"}}', size)).toEqual({
        calls: [paris],
        text: '',
      });
      // Llama 3's JSON format, then an array of calls (a Qwen3.6 drift), then text after a call.
      expect(run('\n{"name": "get_weather", "parameters": {"city": "Paris"}}', size).calls).toEqual(
        [paris],
      );
      expect(
        run(
          '[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_weather", "arguments": {"city": "Rome"}}]',
          size,
        ).calls,
      ).toEqual([paris, ['get_weather', { city: 'Rome' }]]);
      expect(run('{"name": "get_weather", "arguments": {"city": "Paris"}} Done.', size)).toEqual({
        calls: [paris],
        text: ' Done.',
      });
      // Llama 3.2/4's pythonic format.
      expect(run('[get_weather(city="Paris"), get_weather(city=\'Rome\')]', size).calls).toEqual([
        paris,
        ['get_weather', { city: 'Rome' }],
      ]);
      // Arguments written flat beside the name (gpt-oss), when they are declared parameters.
      expect(run('{"name": "get_weather", "city": "Paris"}', size)).toEqual({
        calls: [paris],
        text: '',
      });
      // The API's own shape, LangChain's, other names for the arguments, another way to write
      // the name.
      for (const shape of [
        '{"type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}',
        '{"tool": "get_weather", "tool_input": {"city": "Paris"}}',
        '{"tool_name": "get_weather", "args": {"city": "Paris"}}',
        '{"name": "get_weather", "input": {"city": "Paris"}}',
        '{"name": "getWeather", "arguments": {"city": "Paris"}}',
        '{"tool": "GetWeather", "city": "Paris"}',
        '{"get_weather": {"city": "Paris"}}',
      ])
        expect(run(shape, size)).toEqual({ calls: [paris], text: '' });
      // In a Markdown fence, closed or not.
      for (const fenced of [
        '```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```',
        '```\n[get_weather(city="Paris")]',
        // Tagged in capitals, a space after the tag, Windows line ends.
        '```JSON \r\n{"name": "get_weather", "arguments": {"city": "Paris"}}\r\n```',
      ])
        expect(run(fenced, size)).toEqual({ calls: [paris], text: '' });
      // JSON that is no call of an active tool is text, whole.
      for (const other of [
        '```python\nprint(1)\n```',
        '`ls` lists files.',
        '{"answer": 42} is it',
        '{"name": "launch", "arguments": {}}',
        '{"name": "get_weather", "country": "France"}',
        '{"name": "get_weather"}',
        '{"answer": {"city": "Paris"}}',
        '[1, 2]',
        '[launch(now=True)]',
        '[laughs] Sure.',
      ])
        expect(run(other, size)).toEqual({ calls: [], text: other });
    }
    // Prose that only starts with a bracket is not held past the character that shows it.
    const stage = new CompletionDecoder(schemas);
    expect(stage.chunk(delta({ content: '[laughs' }))).toEqual([]); // could be `[laughs(`
    expect(stage.chunk(delta({ content: '] Sure' }))).toEqual([
      { type: 'text', text: '[laughs] Sure' },
    ]);
    // A reply that only looks like a call is held at most 16 KiB, then goes out as text.
    const long = new CompletionDecoder(schemas);
    expect(long.chunk(delta({ content: '{"note": "' }))).toEqual([]);
    const released = long.chunk(delta({ content: 'x'.repeat(16_384) }));
    expect(released).toEqual([{ type: 'text', text: `{"note": "${'x'.repeat(16_384)}` }]);
    // Without tools nothing is held: a "{" goes out with its delta.
    const noTools = new CompletionDecoder(new Map());
    expect(noTools.chunk(delta({ content: '{' }))).toEqual([{ type: 'text', text: '{' }]);
  });

  it('does not rescue from reasoning when the content already has a call', () => {
    const other = xml.replace('Paris', 'Rome');
    const events = decode([delta({ reasoning: other }), delta({ content: xml }, 'stop')]);
    expect(calls(events).map((c) => (c as { arguments: unknown }).arguments)).toEqual([
      { city: 'Paris' },
    ]);
  });

  it('emits the same call seen structured and as text once, and a call the model repeats each time', () => {
    const structured = (n: number) =>
      Array.from({ length: n }, (_, index) => ({
        index,
        id: `call_${index}`,
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      }));
    const count = (text: string, n: number) =>
      calls(decode([delta({ content: text }), delta({ tool_calls: structured(n) }, 'tool_calls')]))
        .length;
    expect(count(xml, 1)).toBe(1);
    expect(count(`${xml}\n${xml}`, 2)).toBe(2);
    // Two identical calls in one place are two (adding the same item twice), however seen.
    expect(count(`${xml}\n${xml}`, 0)).toBe(2);
    expect(count('', 2)).toBe(2);
    expect(count(`${xml}\n${xml}`, 1)).toBe(2);
  });

  it('repairs broken structured arguments, or passes them on raw when they cannot be repaired', () => {
    const events = decode([
      delta({
        tool_calls: [
          { index: 0, id: 'a', function: { name: 'get_weather', arguments: '{"city": "Par' } },
        ],
      }),
      delta(
        {
          tool_calls: [
            { index: 1, id: 'b', function: { name: 'get_weather', arguments: 'city=Paris' } },
          ],
        },
        'tool_calls',
      ),
    ]);
    expect(calls(events)).toEqual([
      expect.objectContaining({ id: 'a', arguments: { city: 'Par' }, argumentsValid: true }),
      expect.objectContaining({ id: 'b', argumentsValid: false, rawArguments: 'city=Paris' }),
    ]);
  });

  it.each(
    loadVectors('qwen3-coder-streaming.json')
      .filter((v) => v.format === 'openai_delta_tool_calls')
      .map((v) => [v.id, v] as const),
  )('assembles %s', (_id, v) => {
    const events = decode(v.chunks!.map((c) => delta(c)));
    expect(
      calls(events).map((c: any) => ({ id: c.id, name: c.name, arguments: c.arguments })),
    ).toEqual(v.expected_final!.tool_calls);
    expect(
      events
        .filter((e) => e.type === 'text')
        .map((e: any) => e.text)
        .join(''),
    ).toBe(v.expected_final!.content);
  });

  it('reads the structured non-streamed message vector', () => {
    const v = loadVectors('qwen3-coder-streaming.json').find((x) => x.format === 'openai_message')!;
    const events = new CompletionDecoder(new Map()).reply({
      choices: [{ message: v.message, finish_reason: 'tool_calls' }],
    });
    expect(
      calls(events).map((c: any) => ({ id: c.id, name: c.name, arguments: c.arguments })),
    ).toEqual(v.expected_final!.tool_calls);
  });
});
