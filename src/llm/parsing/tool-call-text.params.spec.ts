import { randomSplit, rng, runParser as run } from '../../../test/support/qwen-vectors.js';
import type { ToolSchemas } from './value-typing.js';

// Where a value ends when the model writes parameters the tool does not declare, or leaves out
// a call's `</function>`: each case whole, a character at a time and split at random.
const schemas: ToolSchemas = new Map([
  ['write', { type: 'object', properties: { path: { type: 'string' }, body: { type: 'string' } } }],
  ['now', { type: 'object', properties: {} }],
]);
const open = '<tool_call>\n<function=write>\n<parameter=body>\nx</parameter>\n';

function expectAnySplit(input: string, expected: ReturnType<typeof run>): void {
  expect(run([input], schemas)).toEqual(expected);
  expect(run([...input], schemas)).toEqual(expected);
  for (let seed = 1; seed <= 20; seed++)
    expect(run(randomSplit(input, rng(seed)), schemas)).toEqual(expected);
}

describe('undeclared parameters after a declared one', () => {
  it.each([
    ['the output ends inside it', `${open}<parameter=note>\nhello`, ''],
    ['its close ends the output', `${open}<parameter=note>\nhello</parameter>`, ''],
    [
      '</tool_call> follows it',
      `${open}<parameter=note>\nhello</parameter>\n</tool_call> Done.`,
      ' Done.',
    ],
    [
      'a declared parameter follows it',
      `${open}<parameter=note>\nhello</parameter>\n<parameter=path>\n/a\n</parameter>\n</function>\n</tool_call>`,
      '',
    ],
  ])('is read as a parameter when %s', (_, input, text) => {
    const args: Record<string, string> = { body: 'x', note: 'hello' };
    if (input.includes('<parameter=path>')) args.path = '/a';
    expectAnySplit(input, { text, reasoning: '', calls: [{ name: 'write', arguments: args }] });
  });

  it('reads a run of well-formed undeclared parameters, each as its own', () => {
    const input = `${open}<parameter=note>\nhello</parameter>\n<parameter=other>\nz\n</parameter>\n</function>\n</tool_call>`;
    expectAnySplit(input, {
      text: '',
      reasoning: '',
      calls: [{ name: 'write', arguments: { body: 'x', note: 'hello', other: 'z' } }],
    });
  });

  it('keeps in the value an undeclared parameter whose close is followed by prose (literal text)', () => {
    const input = `${open}<parameter=note>\nhello</parameter>\nprose here\n</parameter>\n</function>\n</tool_call>`;
    expectAnySplit(input, {
      text: '',
      reasoning: '',
      calls: [
        {
          name: 'write',
          arguments: { body: 'x</parameter>\n<parameter=note>\nhello</parameter>\nprose here' },
        },
      ],
    });
  });

  it('keeps in the value a parameter repeated in a run (literal text)', () => {
    const input = `${open}<parameter=note>\na</parameter>\n<parameter=note>\nb\n</parameter>\n</function>\n</tool_call>`;
    const out = run([input], schemas);
    expect(out.calls).toHaveLength(1);
    expect(out.calls[0]!.arguments).toMatchObject({ body: 'x</parameter>\n<parameter=note>\na' });
    expect(run([...input], schemas)).toEqual(out);
  });
});

describe('a bare call whose </function> is left out', () => {
  it.each([
    ['a bare call', '<function=now>\n</function>'],
    ['a wrapped call', '<tool_call>\n<function=now>\n</function>\n</tool_call>'],
  ])('ends where %s of an active tool begins', (_, next) => {
    expectAnySplit(`<function=write>\n<parameter=body>\nx\n</parameter>\n${next}`, {
      text: '',
      reasoning: '',
      calls: [
        { name: 'write', arguments: { body: 'x' } },
        { name: 'now', arguments: {} },
      ],
    });
  });

  it('keeps in the value a call of a tool that is not active (literal text)', () => {
    const input =
      '<function=write>\n<parameter=body>\nx\n</parameter>\n<tool_call>\n<function=nope>\n</function>\n</tool_call>';
    expectAnySplit(input, {
      text: '',
      reasoning: '',
      calls: [
        { name: 'write', arguments: { body: 'x\n</parameter>\n<tool_call>\n<function=nope>' } },
      ],
    });
  });

  it('keeps a function tag written inside a value', () => {
    const input =
      '<tool_call>\n<function=write>\n<parameter=body>\na <function=now> b\n</parameter>\n</function>\n</tool_call>';
    expectAnySplit(input, {
      text: '',
      reasoning: '',
      calls: [{ name: 'write', arguments: { body: 'a <function=now> b' } }],
    });
  });
});
