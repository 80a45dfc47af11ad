import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expandRefusal } from '../../../test/support/openapi-expand.js';
import { shapeFault } from './document-shape.js';

describe("an API document's skeleton", () => {
  it('is sound when its lists are lists, its objects objects, the texts read texts', () => {
    const doc = {
      openapi: '3.1.0',
      servers: [{ url: 'https://api.example.com', variables: { v: { default: '1' } } }],
      paths: {
        '/orders/{id}': {
          parameters: [{ name: 'id', in: 'path', required: true }],
          get: { operationId: 'getOrder', tags: ['orders'], security: [{ key: [] }] },
        },
        '/empty': null,
      },
      components: { schemas: { Order: { type: 'object' } }, securitySchemes: { key: {} } },
    };
    expect(shapeFault(doc, 'openapi3')).toBeUndefined();
    const swagger = {
      swagger: '2.0',
      host: 'api.example.com',
      basePath: '/v1',
      schemes: ['https'],
      paths: { '/orders': { post: { operationId: 'add', parameters: [{ in: 'body' }] } } },
      securityDefinitions: { key: { type: 'apiKey' } },
    };
    expect(shapeFault(swagger, 'swagger2')).toBeUndefined();
  });

  it('says where it is written wrong, as the reader of the document writes the place', () => {
    expect(shapeFault({ paths: { '/orders/{id}': { parameters: 5 } } }, 'openapi3')).toBe(
      'its paths["/orders/{id}"].parameters is not a list',
    );
    expect(
      shapeFault({ paths: { '/a': { get: { parameters: [{ name: 'q' }, null] } } } }, 'openapi3'),
    ).toBe('its paths["/a"].get.parameters[1] is not an object');
    expect(shapeFault({ servers: [{ url: { a: 1 } }] }, 'openapi3')).toBe(
      'its servers[0].url is not a string',
    );
    expect(
      shapeFault({ paths: { '/a': { get: { parameters: [{ name: 7 }] } } } }, 'openapi3'),
    ).toBe('its paths["/a"].get.parameters[0].name is not a string');
    expect(shapeFault({ basePath: ['v1'] }, 'swagger2')).toBe('its basePath is not a string');
    expect(shapeFault({ consumes: 'application/json' }, 'swagger2')).toBe(
      'its consumes is not a list',
    );
    expect(shapeFault({ paths: { '/a': { post: { operationId: 3 } } } }, 'swagger2')).toBe(
      'its paths["/a"].post.operationId is not a string',
    );
    expect(shapeFault({ paths: [] }, 'swagger2')).toBe('its paths is not an object');
  });

  it("refuses the document at load naming the entry's spec field and the place", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'doc-shape-'));
    writeFileSync(
      join(dir, 'legacy.json'),
      JSON.stringify({
        swagger: '2.0',
        host: 'api.example.com',
        paths: { '/orders': { parameters: { name: 'q' }, get: { operationId: 'list' } } },
      }),
    );
    writeFileSync(
      join(dir, 'orders.json'),
      JSON.stringify({
        openapi: '3.0.3',
        servers: [{ url: 'https://api.example.com' }],
        paths: { '/orders': { parameters: 'q', get: { operationId: 'list' } } },
      }),
    );
    const options = { baseDir: dir, timeoutMs: 1000 };
    for (const spec of ['legacy.json', 'orders.json'])
      expect(await expandRefusal([{ type: 'openapi', spec, operations: '*' }], options)).toBe(
        `tools.json: tool #0: field 'spec' cannot be read as an OpenAPI document (${join(dir, spec)}): its paths["/orders"].parameters is not a list`,
      );
  });
});
