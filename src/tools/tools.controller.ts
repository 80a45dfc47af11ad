import {
  Controller,
  Get,
  HttpCode,
  HttpException,
  HttpStatus,
  Post,
  Req,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { IncomingMessage } from 'node:http';
import {
  CodeToolDefinitionDto,
  ToolDefinitionDto,
  ToolsErrorDto,
  ToolsResponseDto,
} from './dto/tool-definition.dto.js';
import type { ToolSnapshot } from './tool-definition.js';
import { AdminKeyGuard } from './admin-key.guard.js';
import { ToolRegistry } from './tool-registry.service.js';
import { ToolDefinitionError } from './tool-validation.js';

const MAX_BODY_BYTES = 4 * 1024 * 1024;

function refuse(status: number, message: string): HttpException {
  return new HttpException({ ok: false, statusCode: status, message }, status);
}

function view(snapshot: ToolSnapshot): ToolsResponseDto {
  return {
    ok: true,
    count: snapshot.definitions.length,
    source: snapshot.source,
    tools: snapshot.definitions.map((t) => t.raw as ToolDefinitionDto | CodeToolDefinitionDto),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES)
      throw refuse(413, `request body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** `/api/tools` (seed §2): read the active definitions, or replace them until restart. */
@ApiTags('tools')
@ApiExtraModels(ToolDefinitionDto, CodeToolDefinitionDto)
@ApiBearerAuth('admin')
@UseGuards(AdminKeyGuard)
@Controller('api/tools')
@ApiResponse({
  status: 401,
  description: 'ADMIN_API_KEY is set and the request lacks it',
  type: ToolsErrorDto,
})
@ApiResponse({
  status: 503,
  description: 'The LLM is disabled (LLM_ENABLED=false)',
  type: ToolsErrorDto,
})
export class ToolsController {
  constructor(private readonly registry: ToolRegistry) {}

  @Get()
  @ApiOperation({
    summary: 'Active tool definitions and where they come from (file, request or none)',
  })
  @ApiOkResponse({ type: ToolsResponseDto })
  list(): ToolsResponseDto {
    this.assertLlmEnabled();
    return view(this.registry.active());
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary:
      'Replace the tool definitions from the next turn, in memory only (same format as LLM_TOOLS_FILE)',
    description:
      'The raw body is read whatever its Content-Type. Nothing changes unless every definition is valid. ' +
      'The override is lost on restart, when the file applies again.',
  })
  @ApiBody({
    schema: {
      type: 'array',
      items: {
        oneOf: [
          { $ref: getSchemaPath(ToolDefinitionDto) },
          { $ref: getSchemaPath(CodeToolDefinitionDto) },
        ],
      },
    },
    description: 'A JSON array of tool definitions: HTTP tools, Python code tools and callbacks',
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
  @ApiOkResponse({ type: ToolsResponseDto, description: 'Installed; source is "request"' })
  @ApiResponse({
    status: 400,
    type: ToolsErrorDto,
    description: 'Empty body, not UTF-8, not a JSON array, no definition, or an invalid definition',
  })
  @ApiResponse({ status: 413, type: ToolsErrorDto, description: 'The body is larger than 4 MiB' })
  async replace(@Req() req: IncomingMessage): Promise<ToolsResponseDto> {
    this.assertLlmEnabled();
    const bytes = await readBody(req);
    if (bytes.length === 0)
      throw refuse(400, 'request body is empty: expected a JSON array of tool definitions');
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw refuse(400, 'request body is not valid UTF-8');
    }
    if (text.trim() === '')
      throw refuse(400, 'request body is empty: expected a JSON array of tool definitions');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch (error) {
      throw refuse(400, `request body is not valid JSON: ${(error as Error).message}`);
    }
    try {
      return view(await this.registry.replace(parsed));
    } catch (error) {
      if (error instanceof ToolDefinitionError) throw refuse(400, error.message);
      throw error;
    }
  }

  private assertLlmEnabled(): void {
    if (!this.registry.llmEnabled) throw refuse(503, 'the LLM is disabled (LLM_ENABLED=false)');
  }
}
