import { Controller, Get, HttpCode, HttpStatus, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ANY_DEFINITION_SCHEMA,
  ToolsErrorDto,
  ToolsResponseDto,
} from './dto/tool-definition.dto.js';
import { ToolRegistry } from './tool-registry.service.js';
import {
  ApiDryRun,
  ApiIfMatch,
  assertLlmEnabled,
  ETAG_HEADER,
  ifMatchOf,
  installed,
  isDryRun,
  readJson,
  tagged,
  ToolsAdminApi,
  view,
} from './tools-http.js';

/** `/api/tools` (seed §2): read the active definitions, or replace them until restart. */
@ToolsAdminApi()
@Controller('api/tools')
export class ToolsController {
  constructor(private readonly registry: ToolRegistry) {}

  @Get()
  @ApiOperation({
    summary: 'Active tool definitions and where they come from (file, request or none)',
  })
  @ApiOkResponse({ type: ToolsResponseDto, headers: ETAG_HEADER })
  list(@Res({ passthrough: true }) res: ServerResponse): ToolsResponseDto {
    assertLlmEnabled(this.registry);
    return tagged(res, view(this.registry.active()), this.registry.version());
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary:
      'Replace the tool definitions from the next turn, in memory only (same format as LLM_TOOLS_FILE)',
    description:
      'The raw body is read whatever its Content-Type. Nothing changes unless every definition is valid. ' +
      'It is installed in every engine process before the answer, and with a Redis SESSION_STORE_URL in every replica sharing it (and in one started later, while a replica holds it). ' +
      'The override is lost on restart (of every replica, with Redis), when the file applies again.',
  })
  @ApiBody({
    schema: {
      type: 'array',
      items: ANY_DEFINITION_SCHEMA,
    },
    description:
      'A JSON array of tool definitions: HTTP tools, Python code tools and callbacks, MCP tools, OpenAPI operations',
    examples: {
      get_weather: {
        value: [
          {
            name: 'get_weather',
            description: 'Weather of a city',
            parameters: {
              type: 'object',
              properties: { city: { type: 'string' } },
              required: ['city'],
            },
            url: 'https://wttr.in/{city}?format=3',
            method: 'GET',
          },
        ],
      },
    },
  })
  @ApiOkResponse({
    type: ToolsResponseDto,
    description: 'Installed; source is "request"',
    headers: ETAG_HEADER,
  })
  @ApiResponse({
    status: 400,
    type: ToolsErrorDto,
    description: 'Empty body, not UTF-8, not a JSON array, no definition, or an invalid definition',
  })
  @ApiResponse({ status: 413, type: ToolsErrorDto, description: 'The body is larger than 4 MiB' })
  @ApiDryRun()
  @ApiIfMatch(false)
  async replace(
    @Req() req: IncomingMessage,
    @Res({ passthrough: true }) res: ServerResponse,
    @Query('dry_run') dryRun?: string,
  ): Promise<ToolsResponseDto> {
    assertLlmEnabled(this.registry);
    const parsed = await readJson(req, 'a JSON array of tool definitions');
    const dry = isDryRun(dryRun);
    const opts = { dryRun: dry, ifMatch: ifMatchOf(req) };
    const change = this.registry.replace(parsed, 'request body', opts);
    return (await installed(res, this.registry, change, dry))!;
  }
}
