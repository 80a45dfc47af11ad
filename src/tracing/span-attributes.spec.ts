import { toolErrors } from '../tools/tool-errors.js';
import { completionAttributes, toolFailure } from './span-attributes.js';

describe('toolFailure', () => {
  it('says why a call failed without what may hold data', () => {
    expect(toolFailure(toolErrors.httpStatus('404 Not Found', 'no user 4111-1111'))).toEqual({
      type: '404',
      message: 'HTTP 404 Not Found',
    });
    expect(toolFailure(toolErrors.notAnObject('{"card": "4111'))).toEqual({
      type: 'invalid_arguments',
      message: 'arguments are not a JSON object',
    });
    expect(toolFailure(toolErrors.unknownTool('nope'))).toEqual({
      type: 'unknown_tool',
      message: "unknown tool 'nope'",
    });
    expect(toolFailure(toolErrors.invalidMethod('FETCH', 'x')).type).toBe('invalid_method');
    expect(toolFailure(toolErrors.unavailable(5, 30_000))).toMatchObject({ type: 'not_sent' });
    expect(toolFailure(toolErrors.requestFailed('timeout after 15s'))).toEqual({
      type: 'tool_error',
      message: 'timeout after 15s',
    });
  });

  it('keeps the first line only, at most 200 characters', () => {
    const { message } = toolFailure(`Error: tool request failed: ${'x'.repeat(500)}\nTraceback…`);
    expect(message).toBe('x'.repeat(200));
  });
});

describe('completionAttributes', () => {
  it('names the finish reason and the tokens as OpenTelemetry’s GenAI conventions do', () => {
    expect(completionAttributes('tool_calls', { prompt_tokens: 10, completion_tokens: 2 })).toEqual(
      {
        'gen_ai.response.finish_reasons': ['tool_calls'],
        'gen_ai.usage.input_tokens': 10,
        'gen_ai.usage.output_tokens': 2,
      },
    );
    expect(completionAttributes(null)).toEqual({});
  });
});
