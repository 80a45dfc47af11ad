import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';

/** The document, read once: it is served as committed (made from the message types). */
let document: string | undefined;
const asyncApi = () =>
  (document ??= readFileSync(new URL('../../../asyncapi.json', import.meta.url), 'utf8'));

/**
 * `GET /asyncapi.json`: the WebSocket protocol of `/ws` as an AsyncAPI 3.0 document, for client
 * authors and their code generators, as `/docs-json` is for the HTTP API.
 */
@ApiTags('protocol')
@Controller()
export class AsyncApiController {
  @Get('asyncapi.json')
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiOperation({
    summary: 'The WebSocket protocol of /ws, as an AsyncAPI 3.0 document',
    description:
      "Every message a client may send and every message the engine sends, with its fields' types and the README's description and examples; made from the engine's own message types.",
  })
  @ApiProduces('application/json')
  @ApiOkResponse({
    description: 'An AsyncAPI 3.0.0 document',
    schema: { type: 'object', properties: { asyncapi: { type: 'string', example: '3.0.0' } } },
  })
  asyncApi(): string {
    return asyncApi();
  }
}
