import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { ENGINE_VERSION } from './version.js';

export function buildOpenApi(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Audio agent engine')
    .setDescription(
      'Admin API of the voice-agent engine. The conversation itself runs over the WebSocket at /ws (see README, "WebSocket protocol"), described as AsyncAPI 3.0 at /asyncapi.json.',
    )
    .setVersion(ENGINE_VERSION)
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    .addServer('/', 'this engine')
    .addTag('tools', 'Tools the model may call: HTTP tools (seed §2–§4) and Python code tools')
    .addTag(
      'sessions',
      'Sessions open on this engine (all its processes, and with Redis all its replicas): listed, read, closed',
    )
    .addTag('calls', 'Phone calls the agent places, through Twilio')
    .addTag('twilio', "Twilio's webhooks: a call coming in, a transferred call's dial ended")
    .addTag('protocol', 'The WebSocket protocol of /ws, described for clients (AsyncAPI)')
    .addTag('metrics', 'Prometheus metrics')
    .addTag('health', 'Probes for orchestrators')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'ADMIN_API_KEY, when the engine sets one' },
      'admin',
    )
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_controller: string, method: string) => method,
  });
  // The probes and Twilio's webhooks take no key: said so (`security: []`), as linters and
  // generated clients want every operation to say.
  for (const item of Object.values(document.paths))
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = item[method];
      if (operation && operation.security === undefined) operation.security = [];
    }
  return document;
}

/**
 * Swagger UI at /docs, JSON at /docs-json. The document is built at the first request for it, not
 * at start-up (~75 ms of each process's start: reading every route's metadata), and kept.
 */
export function setupSwagger(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApi(app), { jsonDocumentUrl: 'docs-json' });
}
