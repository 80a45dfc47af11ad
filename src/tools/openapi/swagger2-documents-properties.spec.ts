import fc from 'fast-check';
import {
  anyDocumentLoads,
  anything,
  paths,
  rightBut,
  schemas,
} from '../../../test/support/openapi-documents.js';

const schema = schemas('#/definitions/');
/**
 * Any JSON once in 40 fields: a Swagger 2.0 document has more fields the engine checks than an
 * OpenAPI 3 one, and enough must be right for tools to be made.
 */
const mostly = rightBut(40);

/** A parameter not in the body: typed in place, as Swagger 2.0 writes them (or wrong). */
const inPlace = fc.record(
  {
    name: mostly(fc.constantFrom('id', 'order_id', 'q', 'X-Trace', 'page[size]', '')),
    in: mostly(fc.constantFrom('path', 'query', 'header', 'formData', 'cookie')),
    required: mostly(fc.boolean()),
    type: mostly(fc.constantFrom('string', 'integer', 'number', 'boolean', 'array', 'file')),
    format: fc.constantFrom('int32', 'date-time', 'byte', 'password'),
    items: mostly(fc.record({ type: fc.constantFrom('string', 'integer', 'array') })),
    collectionFormat: mostly(fc.constantFrom('csv', 'ssv', 'tsv', 'pipes', 'multi')),
    enum: mostly(fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 })),
    default: anything,
    description: fc.string({ maxLength: 10 }),
  },
  { requiredKeys: ['name', 'in'] },
);

/** The body parameter: a schema. */
const inBody = fc.record(
  {
    name: mostly(fc.constantFrom('body', 'order', '')),
    in: fc.constant('body'),
    required: fc.boolean(),
    schema,
  },
  { requiredKeys: ['in'] },
);

const parameter = fc.oneof(
  { weight: 12, arbitrary: inPlace },
  { weight: 6, arbitrary: inBody },
  { weight: 2, arbitrary: fc.constant({ $ref: '#/parameters/Page' }) },
);

const mediaTypes = fc.subarray([
  'application/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'text/plain',
  'application/xml',
]);

const operation = fc.record(
  {
    operationId: mostly(fc.constantFrom('getOrder', 'listItems', 'get order', 'x'.repeat(80))),
    summary: mostly(fc.string({ maxLength: 20 })),
    parameters: mostly(fc.array(mostly(parameter), { maxLength: 3 })),
    consumes: mostly(mediaTypes),
    produces: mostly(mediaTypes),
    responses: mostly(
      fc.constant({ '200': { description: 'ok', schema: { $ref: '#/definitions/Order' } } }),
    ),
    tags: mostly(fc.array(fc.string({ maxLength: 6 }), { maxLength: 2 })),
    deprecated: fc.boolean(),
    security: mostly(fc.constantFrom([{ key: [] }], [{ basic: [] }], [])),
  },
  { requiredKeys: [] },
);

/** Swagger 2.0 documents, each field right or not: what older services publish, slips included. */
const document = fc.record(
  {
    swagger: mostly(fc.constant('2.0')),
    info: mostly(fc.constant({ title: 'Orders', version: '1' })),
    host: mostly(
      fc.constantFrom('api.example.com', 'api.example.com:8443', '', 'https://api.example.com'),
    ),
    basePath: mostly(fc.constantFrom('/v1', '/', '', 'v1', '/a b')),
    schemes: mostly(
      fc.oneof(
        { weight: 3, arbitrary: fc.constant(['https']) },
        fc.subarray(['https', 'http', 'ws', 'wss']),
      ),
    ),
    consumes: mostly(mediaTypes),
    produces: mostly(mediaTypes),
    paths: paths(mostly, operation, parameter),
    definitions: mostly(fc.record({ Order: schema })),
    parameters: mostly(fc.record({ Page: mostly(inPlace) })),
    securityDefinitions: mostly(
      fc.constantFrom(
        { key: { type: 'apiKey', in: 'header', name: 'X-Key' } },
        { key: { type: 'apiKey', in: 'query', name: 'key' }, basic: { type: 'basic' } },
        { oauth: { type: 'oauth2', flow: 'application', tokenUrl: 'https://a.example.com/t' } },
      ),
    ),
    security: mostly(fc.constantFrom([{ key: [] }], [])),
  },
  { requiredKeys: ['swagger', 'host', 'paths', 'definitions', 'parameters'] },
);

anyDocumentLoads('OpenAPI entries over any Swagger 2.0 document', document);
