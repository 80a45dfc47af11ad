import { buildHttpRequest } from '../http-request-builder.js';
import { validateToolDefinitions } from '../tool-validation.js';
import { operationTool, type OpenApiSpec } from './openapi-operation.js';

/** What an operation's request body holds, and when a verb sends one. */
describe('operationTool: the request body', () => {
  const post = (operation: Record<string, unknown>, path = '/items'): OpenApiSpec => ({
    paths: { [path]: { post: { operationId: 'op', ...operation } } },
  });
  const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
  it('offers no readOnly body property, at any depth, and keeps a readOnly path parameter', () => {
    // As Jira's documents write them: ids and links the server makes, required for responses.
    const id = { type: 'string', readOnly: true };
    const made = operationTool(
      post(
        {
          parameters: [{ name: 'board', in: 'path', required: true, schema: id }],
          requestBody: json({
            type: 'object',
            properties: {
              id,
              self: { allOf: [{ type: 'string' }, { readOnly: true }] },
              name: { type: 'string' },
              lead: { type: 'object', properties: { id, email: { type: 'string' } } },
            },
            required: ['id', 'name'],
          }),
        },
        '/boards/{board}/components',
      ),
      'op',
      'http://x',
    );
    expect(made.parameters).toEqual({
      type: 'object',
      properties: {
        board: id,
        name: { type: 'string' },
        lead: { type: 'object', properties: { email: { type: 'string' } } },
      },
      required: ['board', 'name'],
    });
  });

  it('takes no body for a verb whose arguments go in the query (a DELETE that declares one)', () => {
    const spec: OpenApiSpec = {
      paths: {
        '/items/{id}': {
          delete: {
            operationId: 'drop',
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
            requestBody: json({ type: 'object', properties: { reason: { type: 'string' } } }),
          },
        },
      },
    };
    expect(operationTool(spec, 'drop', 'http://x').parameters).toEqual({
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
    });
  });

  it('sends the body a DELETE requires (a bulk delete), its query parameters in the query', () => {
    const ids = { type: 'array', items: { type: 'string' } };
    const spec: OpenApiSpec = {
      paths: {
        '/contacts/bulkDelete': {
          delete: {
            operationId: 'bulk',
            parameters: [{ name: 'dry_run', in: 'query', schema: { type: 'boolean' } }],
            requestBody: {
              required: true,
              ...json({ type: 'object', properties: { ids }, required: ['ids'] }),
            },
          },
        },
      },
    };
    const made = operationTool(spec, 'bulk', 'http://x');
    expect(made.parameters).toEqual({
      type: 'object',
      properties: { dry_run: { type: 'boolean' }, ids },
      required: ['ids'],
    });
    const { tools } = validateToolDefinitions(
      [
        {
          name: 'bulk',
          url: made.url,
          method: made.method,
          parameters: made.parameters,
          query_arguments: made.queryArguments,
          body: made.body,
        },
      ],
      't.json',
    );
    expect(buildHttpRequest(tools[0]!, { ids: ['c1', 'c2'], dry_run: true })).toEqual({
      method: 'DELETE',
      url: 'http://x/contacts/bulkDelete?dry_run=true',
      headers: { 'Content-Type': 'application/json' },
      body: '{"ids":["c1","c2"]}',
    });
  });
});
