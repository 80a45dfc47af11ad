import type { ToolCallEvent } from '../llm/llm.types.js';
import type { Tool } from '../tools/tool-definition.js';
import { repeatedText, TurnResults } from './repeated-calls.js';

const tool = (fields: Partial<Tool>) => ({ kind: 'http', method: 'POST', ...fields }) as Tool;
const call = (args: Record<string, unknown>, valid = true) =>
  ({
    type: 'tool_call',
    id: 'c',
    name: 'book',
    arguments: args,
    rawArguments: JSON.stringify(args),
    argumentsValid: valid,
  }) as ToolCallEvent;

describe('TurnResults', () => {
  const book = tool({ name: 'book' });

  it('gives the first result of the same call in a later round, whatever the order of its arguments', () => {
    const results = new TurnResults(true);
    expect(results.earlier(call({ a: 1, b: 2 }), book)).toBeUndefined();
    results.succeeded(call({ a: 1, b: 2 }), book, 'first');
    results.succeeded(call({ a: 1, b: 2 }), book, 'second');
    // The same message's calls run as they are made.
    expect(results.earlier(call({ a: 1, b: 2 }), book)).toBeUndefined();
    results.roundEnded();
    expect(results.earlier(call({ b: 2, a: 1 }), book)).toBe('first');
    expect(results.earlier(call({ a: 1, b: 3 }), book)).toBeUndefined();
    // A round in which nothing acted keeps them; one in which another call acted does not.
    results.succeeded(call({ a: 1 }), tool({ method: 'GET' }), 'looked');
    results.roundEnded();
    expect(results.earlier(call({ a: 1, b: 2 }), book)).toBe('first');
    results.succeeded(call({ c: 1 }), tool({ kind: 'python' }), 'acted');
    results.roundEnded();
    expect(results.earlier(call({ a: 1, b: 2 }), book)).toBeUndefined();
    expect(repeatedText('first')).toMatch(/^Not run again: .*\nfirst$/);
  });

  it.each([
    ['a tool whose requests change nothing', tool({ method: 'GET' }), true, true],
    ['a POST marked safe', tool({ safe: true }), true, true],
    ['a repeatable tool', tool({ repeatable: true }), true, true],
    ['a code tool', tool({ kind: 'python' }), true, true],
    ['a handoff', tool({ kind: 'handoff', method: '' }), true, true],
    ['arguments that are not valid JSON', book, false, true],
    ['LLM_TOOL_REPEAT_CALLS=run', book, true, false],
    ['a tool the snapshot does not have', undefined, true, true],
  ])('keeps nothing for %s', (_what, t, valid, reuse) => {
    const results = new TurnResults(reuse);
    results.succeeded(call({ a: 1 }, valid), t, 'done');
    results.roundEnded();
    expect(results.earlier(call({ a: 1 }, valid), t)).toBeUndefined();
  });

  it('takes arguments written another way for those the check makes them', () => {
    const meals = tool({
      name: 'book',
      parameters: {
        type: 'object',
        properties: { meal: { type: 'string', enum: ['dinner'] }, people: { type: 'integer' } },
      },
    });
    const results = new TurnResults(true);
    results.succeeded(call({ meal: 'dinner', people: 4 }), meals, 'booked');
    results.roundEnded();
    expect(results.earlier(call({ Meal: 'Dinner', people: '4' }), meals)).toBe('booked');
  });

  it('keeps an MCP tool that acts', () => {
    const results = new TurnResults(true);
    const mcp = tool({ kind: 'mcp', method: '' });
    results.succeeded(call({ a: 1 }), mcp, 'done');
    results.roundEnded();
    expect(results.earlier(call({ a: 1 }), mcp)).toBe('done');
  });
});
