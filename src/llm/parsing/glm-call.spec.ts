import { randomSplit, rng, runParser as run } from '../../../test/support/qwen-vectors.js';
import type { ToolSchemas } from './value-typing.js';

const schemas: ToolSchemas = new Map([
  [
    'get_weather',
    {
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer' },
        units: { type: 'string' },
      },
    },
  ],
  ['get_time', { type: 'object', properties: {} }],
  ['ls', { type: 'object', properties: { dirPath: { type: 'string' } } }],
]);

/** The same outcome whole, a character at a time, and cut at random. */
function each(input: string) {
  const whole = run([input], schemas);
  expect(run([...input], schemas)).toEqual(whole);
  for (let seed = 1; seed <= 5; seed++)
    expect(run(randomSplit(input, rng(seed * input.length)), schemas)).toEqual(whole);
  return whole;
}

// GLM-4.5/4.6/4.7 calls in the text: a server running GLM with another tool parser, or none.
describe('GLM tool calls in the text', () => {
  it('reads the 4.5 layout (name, newline, one pair a line), typing values from the schema', () => {
    const out = each(
      'Checking.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n' +
        '<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>',
    );
    expect(out.calls).toEqual([{ name: 'get_weather', arguments: { city: 'Paris', days: 3 } }]);
    expect(out.text).toBe('Checking.\n');
  });

  it('reads the 4.7 layout (no newlines), several calls, and prose around them', () => {
    const call = (city: string) =>
      `<tool_call>get_weather<arg_key>city</arg_key><arg_value>${city}</arg_value></tool_call>`;
    const out = each(`Two cities: ${call('Paris')}${call('Rome')} Done.`);
    expect(out.calls).toEqual([
      { name: 'get_weather', arguments: { city: 'Paris' } },
      { name: 'get_weather', arguments: { city: 'Rome' } },
    ]);
    expect(out.text).toBe('Two cities:  Done.');
  });

  it('keeps string values as written, reads undeclared values as JSON, and a call with no arguments', () => {
    const out = each(
      '<tool_call>get_weather\n<arg_key>units</arg_key>\n<arg_value> 42 </arg_value>\n' +
        '<arg_key>extra</arg_key>\n<arg_value>{"a": [1, true]}</arg_value>\n</tool_call>' +
        '<tool_call>get_time\n</tool_call><tool_call>get_time</tool_call>',
    );
    expect(out.calls).toEqual([
      { name: 'get_weather', arguments: { units: ' 42 ', extra: { a: [1, true] } } },
      { name: 'get_time', arguments: {} },
      { name: 'get_time', arguments: {} },
    ]);
    expect(out.text).toBe('');
  });

  it('reads the spaced drift seen from quantised GLM-4.5-Air', () => {
    const out = each(
      'Let me look: <tool_call>ls <arg_key>dirPath</arg_key> <arg_value>backend</arg_value> </tool_call>',
    );
    expect(out.calls).toEqual([{ name: 'ls', arguments: { dirPath: 'backend' } }]);
    expect(out.text).toBe('Let me look: ');
  });

  it('salvages the complete arguments of a call cut off at the end of the output', () => {
    const out = each(
      '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n<arg_key>da',
    );
    expect(out.calls).toEqual([{ name: 'get_weather', arguments: { city: 'Oslo' } }]);
    expect(out.text).toBe('');
  });

  it('leaves prose alone: a <tool_call> mentioned with a word after it, or around an unknown name', () => {
    for (const prose of [
      'The <tool_call> tag opens a call.',
      'Write <tool_call>name then arguments.',
      'The tag <tool_call>here</tool_call> is literal.',
    ]) {
      expect(each(prose)).toEqual({ text: prose, reasoning: '', calls: [] });
    }
  });
});
