/**
 * A Swagger 2.0 document (what many services still publish: Springfox's, older gateways') made
 * the OpenAPI 3.0 document tools are made from, by swagger2openapi, loaded with the first one.
 */
import type { OpenApiSpec } from './openapi-operation.js';

/**
 * `document` (Swagger 2.0, its references resolved but those that make a cycle) as OpenAPI 3.0:
 * host, basePath and schemes become its server; body and formData parameters its request body;
 * collectionFormat a style; securityDefinitions its security schemes; definitions its schemas
 * (where a cycle's references now point). Small slips are mended, as the Swagger Editor does.
 */
export async function fromSwagger2(document: OpenApiSpec): Promise<OpenApiSpec> {
  const { default: converter } = await import('swagger2openapi');
  // A copy: the converter changes what it is given, and the document resolved shares objects.
  const copy: unknown = JSON.parse(JSON.stringify(document));
  const { openapi } = await converter.convertObj(copy, { patch: true, warnOnly: true });
  return openapi as OpenApiSpec;
}
