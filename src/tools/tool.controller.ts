import {
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  Put,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ANY_DEFINITION_SCHEMA,
  ToolsErrorDto,
  ToolsResponseDto,
  type AnyToolDefinitionDto,
} from './dto/tool-definition.dto.js';
import { withoutUnusedDefs } from '../llm/unused-defs.js';
import { OfferedToolDto } from './dto/tool-call.dto.js';
import { ToolRegistry } from './tool-registry.service.js';
import {
  ApiDryRun,
  ApiIfMatch,
  assertLlmEnabled,
  ETAG_HEADER,
  ifMatchOf,
  isDryRun,
  installed,
  readJson,
  refuse,
  tagged,
  ToolsAdminApi,
  notCallable,
} from './tools-http.js';

/**
 * `/api/tools/{name}`: one tool at a time, for admin tooling that edits a set without resending
 * it. A change is an override of the whole set, as `POST /api/tools` makes: in memory, in every
 * engine process (and with Redis every replica), from the next turn.
 */
@ToolsAdminApi()
@Controller('api/tools/:name')
@ApiParam({ name: 'name', description: 'The tool name', example: 'get_weather' })
export class ToolController {
  constructor(private readonly registry: ToolRegistry) {}

  @Get()
  @ApiOperation({ summary: 'One active tool definition, as it was given' })
  @ApiOkResponse({
    schema: ANY_DEFINITION_SCHEMA,
    headers: {
      ETag: {
        ...ETAG_HEADER.ETag,
        description: 'The version of the whole set (see GET /api/tools)',
      },
    },
  })
  @ApiResponse({ status: 404, type: ToolsErrorDto, description: 'No active tool of that name' })
  getOne(
    @Param('name') name: string,
    @Res({ passthrough: true }) res: ServerResponse,
  ): AnyToolDefinitionDto {
    assertLlmEnabled(this.registry);
    const tool = this.registry.find(name);
    if (!tool) throw refuse(404, `no tool named '${name}'`);
    return tagged(res, tool.raw as AnyToolDefinitionDto, this.registry.version());
  }

  @Get('offered')
  @ApiOperation({
    summary: 'What the model is offered for one active tool: name, description, arguments schema',
    description:
      "The definition as the model sees it, once the engine has made what the definition leaves out: a code tool's description and schema from its docstring and signature, an MCP tool's from its server's list, an OpenAPI tool's from its operation; shared schemas (`$defs`) nothing refers to are left out, as in every request. (The LLM server may get the schema adapted to what it accepts.)",
  })
  @ApiOkResponse({ type: OfferedToolDto })
  @ApiResponse({
    status: 404,
    type: ToolsErrorDto,
    description: 'No tool of that name the model could call',
  })
  offered(@Param('name') name: string): OfferedToolDto {
    assertLlmEnabled(this.registry);
    const tool = this.registry.active().byName.get(name);
    if (!tool) throw notCallable(this.registry, name);
    // As every request sends it: without the shared schemas nothing in it refers to.
    const parameters = withoutUnusedDefs(tool.parameters);
    return { name: tool.name, description: tool.description, parameters };
  }

  @Put()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Add one tool definition, or replace the one of that name in its place',
    description:
      'The body is one definition (the raw body is read whatever its Content-Type); its `name` may be left out, and must otherwise match the path. The whole resulting set is validated: nothing changes unless it is valid. The other definitions are kept as they are: one whose MCP server or OpenAPI document cannot be used now stays pending (not offered) instead of refusing the change.',
  })
  @ApiBody({ schema: ANY_DEFINITION_SCHEMA })
  @ApiOkResponse({
    type: ToolsResponseDto,
    description: 'The resulting set; source is "request"',
    headers: ETAG_HEADER,
  })
  @ApiResponse({
    status: 400,
    type: ToolsErrorDto,
    description: 'Not one valid definition, or a name that differs from the path',
  })
  @ApiResponse({ status: 413, type: ToolsErrorDto, description: 'The body is larger than 4 MiB' })
  @ApiDryRun()
  @ApiIfMatch(true)
  async putOne(
    @Param('name') name: string,
    @Req() req: IncomingMessage,
    @Res({ passthrough: true }) res: ServerResponse,
    @Query('dry_run') dryRun?: string,
  ): Promise<ToolsResponseDto> {
    assertLlmEnabled(this.registry);
    const body = await readJson(req, 'one tool definition (a JSON object)');
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw refuse(
        400,
        'request body must be one tool definition (a JSON object); POST /api/tools takes the array',
      );
    const given = (body as { name?: unknown }).name;
    if (given !== undefined && given !== name)
      throw refuse(
        400,
        `the definition's name ${JSON.stringify(given)} differs from the path's '${name}'`,
      );
    const dry = isDryRun(dryRun);
    const opts = { dryRun: dry, ifMatch: ifMatchOf(req) };
    const change = this.registry.upsert(name, { ...body, name }, opts);
    return (await installed(res, this.registry, change, dry))!;
  }

  @Delete()
  @ApiOperation({
    summary: 'Remove one tool definition',
    description:
      'The others are kept as they are: one whose MCP server or OpenAPI document cannot be used now stays pending (not offered) instead of refusing the change.',
  })
  @ApiOkResponse({
    type: ToolsResponseDto,
    description: 'The resulting set; source is "request"',
    headers: ETAG_HEADER,
  })
  @ApiResponse({ status: 404, type: ToolsErrorDto, description: 'No tool of that name' })
  @ApiIfMatch(true)
  async deleteOne(
    @Param('name') name: string,
    @Req() req: IncomingMessage,
    @Res({ passthrough: true }) res: ServerResponse,
  ): Promise<ToolsResponseDto> {
    assertLlmEnabled(this.registry);
    const removed = this.registry.remove(name, { ifMatch: ifMatchOf(req) });
    const answer = await installed(res, this.registry, removed);
    if (!answer) throw refuse(404, `no tool named '${name}'`);
    return answer;
  }
}
