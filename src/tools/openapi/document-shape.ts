/**
 * The skeleton of an API document the engine reads (OpenAPI 3) or converts (Swagger 2.0): its
 * lists are lists, its objects objects, the texts it reads texts. Checked before anything reads
 * the document, so that a document written wrong is refused saying where (`its
 * paths["/orders"].parameters is not a list`) rather than with the fault it would cause in the
 * code reading it (`… is not iterable`). Only the containers and texts read are checked: a
 * document's other slips are mended or left out as before. Pure: no Nest import.
 */
import type { ErrorObject } from 'ajv';
import { compiledOnUse } from '../../common/compiled-on-use.js';
import { ajv } from '../definition-schema.js';
import { METHODS } from './openapi-operation.js';

const object = { type: 'object' };
const text = { type: 'string' };
const list = (items: object) => ({ type: 'array', items });
const objects = list(object);
const texts = list(text);
const objectOf = (values: object) => ({ type: 'object', additionalProperties: values });
/** A parameter, named and placed by a text. */
const parameter = { type: 'object', properties: { name: text, in: text } };

/**
 * Paths, each of operations (`fields`, and their `parameters`) and its shared `parameters`;
 * YAML's empty path item is null.
 */
const paths = (parameters: object, fields: Record<string, object>) => {
  const operation = { type: 'object', properties: { parameters, ...fields } };
  return objectOf({
    type: ['object', 'null'],
    properties: {
      parameters,
      ...Object.fromEntries(METHODS.map((method) => [method, operation])),
    },
  });
};

const OPENAPI3 = {
  type: 'object',
  properties: {
    servers: list({
      type: 'object',
      properties: { url: text, variables: objectOf(object) },
    }),
    paths: paths(list(parameter), {
      requestBody: { type: 'object', properties: { content: objectOf(object) } },
      tags: texts,
      security: objects,
    }),
    components: {
      type: 'object',
      properties: { schemas: object, securitySchemes: objectOf(object) },
    },
    security: objects,
  },
};

/** Swagger 2.0's parameter: the converter merges a body's schema's lists with a form's. */
const swaggerParameter = {
  ...parameter,
  properties: {
    ...parameter.properties,
    schema: { type: 'object', properties: { required: texts, properties: object } },
  },
};

const SWAGGER2 = {
  type: 'object',
  properties: {
    host: text,
    basePath: text,
    schemes: texts,
    consumes: texts,
    produces: texts,
    paths: paths(list(swaggerParameter), {
      operationId: text,
      consumes: texts,
      produces: texts,
      responses: objectOf(object),
      tags: texts,
      security: objects,
    }),
    definitions: object,
    parameters: objectOf(swaggerParameter),
    responses: objectOf(object),
    securityDefinitions: objectOf({
      type: 'object',
      properties: { authorizationUrl: text, tokenUrl: text },
    }),
    security: objects,
  },
};

const checkOpenApi3 = compiledOnUse(ajv, OPENAPI3);
const checkSwagger2 = compiledOnUse(ajv, SWAGGER2);

const KINDS: Record<string, string> = {
  object: 'an object',
  array: 'a list',
  string: 'a string',
  'object,null': 'an object',
};

/** `/paths/~1orders/parameters` as the document's reader writes it: `paths["/orders"].parameters`. */
function where(instancePath: string): string {
  const keys = instancePath
    .split('/')
    .slice(1)
    .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
  return keys
    .map((key, i) =>
      /^\d+$/.test(key)
        ? `[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(key)
          ? `${i ? '.' : ''}${key}`
          : `[${JSON.stringify(key)}]`,
    )
    .join('');
}

function why(error: ErrorObject): string {
  const kind = [(error.params as { type: string | string[] }).type].flat().join(',');
  return `its ${where(error.instancePath)} is not ${KINDS[kind] ?? kind}`;
}

/**
 * Why `document` cannot be read as the `version` it says it is (where it is written wrong), or
 * undefined if its skeleton is sound.
 */
export function shapeFault(document: object, version: 'openapi3' | 'swagger2'): string | undefined {
  const check = version === 'openapi3' ? checkOpenApi3 : checkSwagger2;
  return check(document) ? undefined : why(check.errors![0]!);
}
