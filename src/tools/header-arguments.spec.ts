import { ToolDefinitionError } from './definition-error.js';
import { buildHttpRequest } from './http-request-builder.js';
import {
  builtRequest as built,
  validatedTool as validated,
} from '../../test/support/built-request.js';

describe('header_arguments', () => {
  const def = {
    url: 'http://h/forecast',
    method: 'GET',
    headers: { 'Accept-Language': '{language}', 'X-Api-Version': '2024-{minor}' },
    header_arguments: ['language', 'minor'],
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        language: { type: 'string' },
        minor: { type: 'string' },
      },
    },
  };

  it('sends them in their headers only, never in the query or body', () => {
    const req = built(def, { city: 'Rome', language: 'it', minor: '06' });
    expect(req.url).toBe('http://h/forecast?city=Rome');
    expect(req.headers).toMatchObject({ 'Accept-Language': 'it', 'X-Api-Version': '2024-06' });
    const posted = built({ ...def, method: 'POST' }, { city: 'Rome', language: 'it', minor: '06' });
    expect([posted.url, JSON.parse(posted.body!)]).toEqual(['http://h/forecast', { city: 'Rome' }]);
  });

  it('leaves out a header naming one the model did not give (or gave as null), not the call', () => {
    const req = built(def, { city: 'Rome', language: null });
    expect(req.url).toBe('http://h/forecast?city=Rome');
    expect(Object.keys(req.headers)).toEqual([]);
    // Without header_arguments the seed's rule holds: a header placeholder's argument is also
    // sent by verb, and one missing refuses the call.
    const plain: Record<string, unknown> = { ...def };
    delete plain.header_arguments;
    expect(built(plain, { city: 'Rome', language: 'it', minor: '06' }).url).toBe(
      'http://h/forecast?city=Rome&language=it&minor=06',
    );
    expect(buildHttpRequest(validated(plain).tools[0]!, { city: 'Rome' })).toEqual({
      error: "Error: tool request failed: missing argument 'language' for placeholder {language}",
    });
  });

  it('refuses a header argument no header names, or one in query_arguments too; warns of one undeclared', () => {
    expect(() => validated({ ...def, header_arguments: ['language', 'city'] })).toThrow(
      new ToolDefinitionError(
        "tools.json: tool #0 't': field 'header_arguments': no header's {placeholder} names 'city': its value would never be sent",
      ),
    );
    expect(() => validated({ ...def, query_arguments: ['minor'] })).toThrow(
      "field 'header_arguments': 'minor' is in 'query_arguments' too",
    );
    const { warnings } = validated({
      ...def,
      method: 'POST',
      query_arguments: ['dry_run'],
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    });
    expect(warnings).toEqual([
      "tools.json: tool #0 't': field 'query_arguments' names 'dry_run', which 'parameters' does not declare: the model is not told of it",
      "tools.json: tool #0 't': field 'header_arguments' names 'language', 'minor', which 'parameters' does not declare: the model is not told of it",
    ]);
  });
});
