import { CompletionDecoder } from '../completion-decoder.js';
import type { ParsedTextCall } from './hermes-call.js';
import { ProseCallSplitter } from './prose-calls.js';

const schemas = new Map([
  ['get_weather', { type: 'object', properties: { city: { type: 'string' } } }],
]);

/** `text` through a splitter in pieces of `size`: what went out after each piece, and at the end. */
function split(text: string, size: number) {
  const splitter = new ProseCallSplitter(schemas);
  const out: (string | ParsedTextCall[])[] = [];
  const afterEach: string[] = [];
  const sink = {
    text: (t: string) => out.push(t),
    calls: (calls: ParsedTextCall[]) => out.push(calls),
  };
  for (let i = 0; i < text.length; i += size) {
    splitter.push(text.slice(i, i + size), sink);
    afterEach.push(out.filter((o) => typeof o === 'string').join(''));
  }
  splitter.end(sink);
  const calls = out.filter((o) => typeof o !== 'string').flat();
  return {
    text: out.filter((o) => typeof o === 'string').join(''),
    calls: calls.map((c) => [c.name, c.args]),
    afterEach,
  };
}

const call = '{"name": "get_weather", "parameters": {"city": "Paris"}}';
const paris = ['get_weather', { city: 'Paris' }];

describe('ProseCallSplitter', () => {
  it.each([1, 4, 1000])('takes a bare JSON call out of prose, in pieces of %i', (size) => {
    expect(split(`Let me check. ${call}`, size)).toMatchObject({
      text: 'Let me check. ',
      calls: [paris],
    });
    expect(split(`One. ${call} Two. [${call}] Three.`, size)).toMatchObject({
      text: 'One.  Two.  Three.',
      calls: [paris, paris],
    });
    expect(
      split(`Checking. {'tool': 'get_weather', 'tool_input': {'city': 'Paris'}}`, size),
    ).toMatchObject({ text: 'Checking. ', calls: [paris] });
    // Cut off by the end of the output: as far as it can be repaired (said to be unclosed, for
    // the decoder not to run it when the token limit cut it).
    expect(
      split('Cut off: {"name": "get_weather", "parameters": {"city": "Pa', size),
    ).toMatchObject({ text: 'Cut off: ', calls: [['get_weather', { city: 'Pa' }]] });
    // In a Markdown fence, closed or not.
    expect(split(`Let me check.\n\`\`\`json\n${call}\n\`\`\`\nDone.`, size)).toMatchObject({
      text: 'Let me check.\n\nDone.',
      calls: [paris],
    });
    expect(split(`Let me check.\n\`\`\`\n${call}`, size)).toMatchObject({
      text: 'Let me check.\n',
      calls: [paris],
    });
  });

  it.each([1, 4, 1000])(
    'leaves JSON and brackets that are no call as text, in pieces of %i',
    (size) => {
      for (const text of [
        'Use {sic} and [laughs] freely.',
        'It returned {"answer": 42} today.',
        'Not ours: {"name": "launch", "arguments": {}} at all.',
        'A set {1, 2} and a list [1, 2].',
        'Ends on a brace {',
        'Run `ls` here, or:\n```python\nprint({"name": 1})\n```\nDone.',
        'A fence:\n```json\n{"answer": 42}\n```',
      ])
        expect(split(text, size)).toMatchObject({ text, calls: [] });
    },
  );

  it.each([1, 4, 1000])(
    "reads Gemma's calls written as code in a tool_code or Python fence, in pieces of %i",
    (size) => {
      const gemma = '```tool_code\nget_weather(city="Paris")\n```';
      expect(split(gemma, size)).toMatchObject({ text: '', calls: [paris] });
      expect(split(`Let me look.\n${gemma}\nOne moment.`, size)).toMatchObject({
        text: 'Let me look.\n\nOne moment.',
        calls: [paris],
      });
      const printed =
        "```python\nprint(default_api.get_weather(city='Paris'))\nget_weather(city='Rome')\n```";
      expect(split(printed, size)).toMatchObject({
        text: '',
        calls: [paris, ['get_weather', { city: 'Rome' }]],
      });
      // Code that is not calls of active tools stays text.
      for (const text of [
        '```python\nlaunch(city="Paris")\n```',
        '```python\nweather = get_weather(city="Paris")\n```',
        '```tool_code\nprint("hello")\n```',
      ])
        expect(split(text, size)).toMatchObject({ text, calls: [] });
    },
  );

  it('reads a code fence the end of the output cut as a call not closed', () => {
    const splitter = new ProseCallSplitter(schemas);
    const calls: ParsedTextCall[] = [];
    const sink = { text: () => undefined, calls: (c: ParsedTextCall[]) => calls.push(...c) };
    splitter.push('```tool_code\nget_weather(city="Paris")', sink);
    expect(calls).toEqual([]);
    splitter.end(sink);
    expect(calls).toMatchObject([{ name: 'get_weather', args: { city: 'Paris' }, unclosed: true }]);
  });

  it('holds back only what may still be a call: the prose before it goes out at once', () => {
    const { afterEach } = split(`Let me check. ${call}`, 1);
    expect(afterEach[13]).toBe('Let me check. ');
    // A `{` that turns out to be no call's start goes out as soon as that is clear.
    expect(split('So {x} is it', 1).afterEach[4]).toBe('So {x');
  });

  it("reads Llama 3.1's call after <|python_tag|>, to <|eom_id|>, from a server that sends special tokens", () => {
    const text = `Checking.<|python_tag|>${call}<|eom_id|>ignored`;
    for (const pieces of [[text], [...text]]) {
      const decoder = new CompletionDecoder(schemas);
      const events = [
        ...pieces.flatMap((content) =>
          decoder.chunk({ choices: [{ index: 0, delta: { content } }] }),
        ),
        ...decoder.end(),
      ];
      expect(events.filter((e) => e.type === 'tool_call')).toEqual([
        expect.objectContaining({ name: 'get_weather', arguments: { city: 'Paris' } }),
      ]);
      const said = events.map((e) => (e.type === 'text' ? e.text : '')).join('');
      expect(said).toBe('Checking.');
    }
  });
});
