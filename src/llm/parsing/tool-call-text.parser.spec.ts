import fc from 'fast-check';
import { assertSameForAnySplit } from '../../../test/support/decode.js';
import {
  loadVectors,
  randomSplit,
  rng,
  runParser as run,
  schemasOf,
  type Vector,
} from '../../../test/support/qwen-vectors.js';
import { ToolCallTextParser } from './tool-call-text.parser.js';
import type { ToolSchemas } from './value-typing.js';
import { WAITING_MARKUP } from './text-scan.js';

const MARKUP = /<\/?(tool_call|function|parameter)\b|<(function|parameter)=/;

function checkContent(v: Vector, text: string, expected: { content: string | null }): void {
  if (expected.content === null) return;
  // Our policy (NOTES.md §11): all text outside calls is visible, a superset of the reference content.
  expect(text.trim().startsWith(expected.content.trim())).toBe(true);
  if (!MARKUP.test(expected.content)) expect(text).not.toMatch(MARKUP);
  for (const s of v.content_contains ?? []) expect(text).toContain(s);
}

const policyExceptions = new Set([
  'vllm_legacy-string_null_becomes_none-1', // we follow vLLM current: "null" stays a string
  'vllm-hermes-test_hermes_parser_non_streaming_tool_call_invalid_json-1', // a bad block is dropped alone
]);

describe.each([['qwen3-coder-vectors.json'], ['hermes-vectors.json']])('%s', (file) => {
  const vectors = loadVectors(file).filter((v) => !policyExceptions.has(v.id));
  it.each(vectors.map((v) => [v.id, v] as const))(
    '%s: whole and split into random 1–7 character deltas',
    (_id, v) => {
      const schemas = schemasOf(v);
      const whole = run([v.input!], schemas);
      expect(whole.calls).toEqual(
        v.expected!.tool_calls.map(({ name, arguments: a }) => ({ name, arguments: a })),
      );
      checkContent(v, whole.text, v.expected!);
      const random = rng(v.id.length * 7919);
      for (let i = 0; i < 20; i++) {
        expect(run(randomSplit(v.input!, random), schemas)).toEqual(whole);
      }
    },
  );
});

describe('qwen3-coder-streaming.json (text vectors)', () => {
  const vectors = loadVectors('qwen3-coder-streaming.json').filter(
    (v) => v.format === 'qwen3_coder_xml',
  );
  it.each(vectors.map((v) => [v.id, v] as const))('%s', (_id, v) => {
    const schemas = schemasOf(v);
    const expected = v.expected_final!;
    const splits = [v.deltas ?? [v.input!], [...v.input!]];
    const random = rng(v.id.length);
    for (let i = 0; i < 10; i++) splits.push(randomSplit(v.input!, random));
    for (const deltas of splits) {
      const out = run(deltas, schemas);
      expect(out.calls).toEqual(
        expected.tool_calls.map(({ name, arguments: a }) => ({ name, arguments: a })),
      );
      checkContent(v, out.text, expected);
    }
  });
});

describe('reasoning and sloppy output', () => {
  it('routes <think> content to reasoning, split anywhere', () => {
    const input = '<think>I should call it</think>Sure.';
    for (let cut = 0; cut <= input.length; cut++) {
      expect(run([input.slice(0, cut), input.slice(cut)])).toEqual({
        text: 'Sure.',
        reasoning: 'I should call it',
        calls: [],
      });
    }
  });

  it('closes a value at </tool_call> when </parameter> and </function> are missing', () => {
    const out = run([
      '<tool_call> <function=glob>\n<parameter=pattern> **/package.json   </tool_call>',
    ]);
    expect(out.calls).toEqual([{ name: 'glob', arguments: { pattern: ' **/package.json   ' } }]);
  });

  it('drops a drifted close marker (</parameter1>, </parameter_x>, </parameter) from a value closed by the next tag', () => {
    const schemas: ToolSchemas = new Map([
      ['get_weather', { properties: { city: { type: 'string' }, days: { type: 'integer' } } }],
    ]);
    for (const marker of [
      '</parameter1>',
      '</parameter_function>',
      '</parameter',
      '</parameter>',
    ]) {
      const input = `<tool_call>\n<function=get_weather>\n<parameter=city>\nShanghai\n${marker}\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>`;
      const expected = {
        text: '',
        reasoning: '',
        calls: [{ name: 'get_weather', arguments: { city: 'Shanghai', days: 3 } }],
      };
      expect(run([input], schemas)).toEqual(expected);
      expect(run(randomSplit(input, rng(marker.length)), schemas)).toEqual(expected);
    }
    // Tags inside a value that a real </parameter> closes stay in the value.
    const literal = run([
      '<function=f>\n<parameter=x>\na <b>tag</b> and </parameter_x> text\n</parameter>\n</function>',
    ]);
    expect(literal.calls).toEqual([
      { name: 'f', arguments: { x: 'a <b>tag</b> and </parameter_x> text' } },
    ]);
  });

  it('drops markup cut off at the end of the output, keeps an opener mentioned in prose', () => {
    for (const tail of [
      '<tool_call>',
      '<tool_call>\n',
      '<tool_call>\n<func',
      '<tool_ca',
      '<functi',
    ]) {
      const input = `I will check.\n${tail}`;
      expect(run([input])).toEqual({ text: 'I will check.\n', reasoning: '', calls: [] });
      expect(run([...input])).toEqual(run([input]));
    }
    const prose = 'The literal tag <tool_call> is mentioned here, and a<b too.';
    expect(run([prose]).text).toBe(prose);
    expect(run([...prose]).text).toBe(prose);
  });

  it('salvages a truncated call whose name is complete', () => {
    const out = run(['Ok <tool_call>\n<function=get_weather>\n<parameter=city>\nRome']);
    expect(out).toEqual({
      text: 'Ok ',
      reasoning: '',
      calls: [{ name: 'get_weather', arguments: { city: 'Rome' } }],
    });
  });

  it('holds prose after a call only briefly: the call and the text come out before the end', () => {
    const p = new ToolCallTextParser();
    const events = [
      ...p.push(
        '<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>\n',
      ),
      ...[...'Here is a long explanation that goes on. '.repeat(8)].flatMap((c) => p.push(c)),
    ];
    expect(events.filter((e) => e.type === 'call')).toHaveLength(1);
    expect(
      events
        .filter((e) => e.type === 'text')
        .map((e) => (e as { text: string }).text)
        .join('').length,
    ).toBeGreaterThan(200);
  });

  it('reads a Hermes call whose string argument contains the closing tag, split anywhere', () => {
    const input =
      'Ok. <tool_call>\n{"name": "note", "arguments": {"text": "write </tool_call> here {x}"}}\n</tool_call> Done.';
    for (let cut = 0; cut <= input.length; cut++) {
      expect(run([input.slice(0, cut), input.slice(cut)])).toEqual({
        text: 'Ok.  Done.',
        reasoning: '',
        calls: [{ name: 'note', arguments: { text: 'write </tool_call> here {x}' } }],
      });
    }
    expect(run([...input])).toEqual(run([input]));
  });

  it('reads parameter names of any script and any a tool declares; a function name of any script is a call', () => {
    const schemas = new Map([
      [
        'book',
        {
          type: 'object',
          properties: { 城市: { type: 'string' }, días: { type: 'integer' }, 'first name': {} },
        },
      ],
    ]);
    const param = (k: string, v: string) => `<parameter=${k}>\n${v}\n</parameter>\n`;
    const input = `<tool_call>\n<function=book>\n${param('城市', '北京')}${param('días', '3')}${param('first name', 'Ada')}${param('größe', 'L')}</function>\n</tool_call>`;
    const out = run([input], schemas);
    expect(out.calls).toEqual([
      { name: 'book', arguments: { 城市: '北京', días: 3, 'first name': 'Ada', größe: 'L' } },
    ]);
    expect(run([...input], schemas)).toEqual(out);
    // Not a tool, but a call: the model is told the name is unknown instead of hearing nothing.
    expect(
      run([`<tool_call>\n<function=获取天气>\n${param('城市', '北京')}</function>\n</tool_call>`])
        .calls,
    ).toEqual([{ name: '获取天气', arguments: { 城市: '北京' } }]);
  });

  it('keeps text after a call visible', () => {
    const out = run(['<tool_call>\n<function=f>\n</function>\n</tool_call>\nDone.']);
    expect(out).toEqual({ text: '\nDone.', reasoning: '', calls: [{ name: 'f', arguments: {} }] });
  });
});

describe('properties', () => {
  const pieces = fc.constantFrom(
    '<tool_call>',
    '</tool_call>',
    '<function=f>',
    '<function=',
    '</function>',
    '<parameter=x>',
    '</parameter>',
    '<think>',
    '</think>',
    '\n',
    ' ',
    'a',
    '<',
    '>',
    '{"name":"f","arguments":{}}',
    'hello ',
    '=',
    '"',
    '{',
    'f',
    'f\n',
    '<arg_key>',
    '</arg_key>',
    '<arg_value>',
    '</arg_value>',
    '<tools>',
    '</tools>',
    '```json\n',
    '```',
    '[',
    ',',
    '<function="f">',
    '<function=f>{"x": 1}',
    '<|im_end|>',
    '<|',
    '<|im_start|>assistant\n',
    '<|im_start|>user',
    '<|start_header_id|>assistant<|end_header_id|>',
  );
  // `f` is an active tool: a GLM call without arguments (`<tool_call>f</tool_call>`) counts.
  const schemas = new Map([['f', { type: 'object', properties: { x: { type: 'integer' } } }]]);
  const input = fc
    .array(fc.oneof(pieces, fc.constantFrom(...WAITING_MARKUP), fc.string({ maxLength: 4 })), {
      maxLength: 30,
    })
    .map((a) => a.join(''));

  it('gives the same result for any split as for one chunk, and never throws', () => {
    assertSameForAnySplit({ text: input, read: (deltas) => run(deltas, schemas), numRuns: 400 });
  });

  it('never lets call markup into visible text when the calls parse', () => {
    const call = fc
      .record({
        city: fc.string({ maxLength: 8 }).filter((s) => !s.includes('<')),
        glm: fc.boolean(),
      })
      .map(({ city, glm }) =>
        glm
          ? `<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>${city}</arg_value>\n</tool_call>`
          : `<tool_call>\n<function=get_weather>\n<parameter=city>\n${city}\n</parameter>\n</function>\n</tool_call>`,
      );
    const prose = fc.string({ maxLength: 10 }).filter((s) => !s.includes('<'));
    fc.assert(
      fc.property(fc.array(fc.tuple(prose, call), { maxLength: 4 }), prose, (parts, tail) => {
        const text = parts.map(([p, c]) => p + c).join('') + tail;
        const out = run(randomSplit(text, rng(text.length + 1)));
        expect(out.text).not.toMatch(/<\/?(tool_call|function|parameter|arg_key|arg_value)/);
        expect(out.calls).toHaveLength(parts.length);
      }),
      { numRuns: 300 },
    );
  });
});
