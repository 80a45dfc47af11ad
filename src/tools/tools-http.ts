import { applyDecorators, HttpException, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiExtraModels,
  ApiHeader,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AdminKeyGuard } from './admin-key.guard.js';
import { requestBody } from '../common/request-body.js';
import {
  CodeToolDefinitionDto,
  EndSessionToolDefinitionDto,
  HandoffToolDefinitionDto,
  McpToolDefinitionDto,
  ToolDefinitionDto,
  ToolSearchToolDefinitionDto,
  TransferCallToolDefinitionDto,
  type AnyToolDefinitionDto,
  ToolsErrorDto,
  type ToolsResponseDto,
} from './dto/tool-definition.dto.js';
import { OpenApiToolDefinitionDto } from './dto/openapi-tool-definition.dto.js';
import type { Tool, ToolSnapshot } from './tool-definition.js';
import { ToolDefinitionError } from './tool-validation.js';
import { etagOf, ifMatchAllows, ToolSetChanged } from './tool-set-version.js';

const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A controller of the admin tools API: tagged, guarded by ADMIN_API_KEY, its 401 and 503 documented. */
export function ToolsAdminApi(): ClassDecorator {
  return applyDecorators(
    ApiTags('tools'),
    ApiExtraModels(
      ToolDefinitionDto,
      CodeToolDefinitionDto,
      McpToolDefinitionDto,
      OpenApiToolDefinitionDto,
      EndSessionToolDefinitionDto,
      TransferCallToolDefinitionDto,
      HandoffToolDefinitionDto,
      ToolSearchToolDefinitionDto,
    ),
    ApiBearerAuth('admin'),
    UseGuards(AdminKeyGuard),
    ApiResponse({
      status: 401,
      description: 'ADMIN_API_KEY is set and the request lacks it',
      type: ToolsErrorDto,
    }),
    ApiResponse({
      status: 503,
      description: 'The LLM is disabled (LLM_ENABLED=false)',
      type: ToolsErrorDto,
    }),
  );
}

/** The admin API answers 503 while the LLM is disabled (LLM_ENABLED=false). */
export function assertLlmEnabled(registry: { llmEnabled: boolean }): void {
  if (!registry.llmEnabled) throw refuse(503, 'the LLM is disabled (LLM_ENABLED=false)');
}

/** An admin API error: `{ok:false, statusCode, message}`. */
export function refuse(status: number, message: string): HttpException {
  return new HttpException({ ok: false, statusCode: status, message }, status);
}

/** 404 for a name the model cannot call: none, a callback, or a tool still pending (and why). */
export function notCallable(
  registry: { find(name: string): Tool | undefined },
  name: string,
): HttpException {
  const pending = registry.find(name)?.pending;
  return refuse(
    404,
    pending === undefined
      ? `no tool named '${name}' that the model can call`
      : `tool '${name}' is not offered to the model yet: ${pending}`,
  );
}

/** `?dry_run=true` (or `1`): check a change and answer the set it would make, installing nothing. */
export function isDryRun(value: string | undefined): boolean {
  if (value === undefined || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1' || value === '') return true;
  throw refuse(400, `dry_run must be true or false, not ${JSON.stringify(value)}`);
}

export function ApiDryRun(): MethodDecorator {
  return ApiQuery({
    name: 'dry_run',
    required: false,
    enum: ['true', 'false'],
    description:
      'true: check the change as it would be made and answer the set it would make (`dry_run: true`), changing nothing: e.g. to check a tools file in a deployment pipeline',
  });
}

/**
 * The set a change installed (or, `dryRun`, would install), as the API answers it; definitions
 * refused are a 400 naming the field.
 */
export async function installed(
  res: ServerResponse,
  registry: { version(): string },
  change: Promise<ToolSnapshot | undefined>,
  dryRun = false,
): Promise<ToolsResponseDto | undefined> {
  try {
    const snapshot = await change;
    if (!snapshot) return undefined;
    // A dry run changed nothing: the set in force keeps its ETag.
    if (dryRun) return { ...view(snapshot), dry_run: true };
    return tagged(res, view(snapshot), registry.version());
  } catch (error) {
    if (error instanceof ToolDefinitionError) throw refuse(400, error.message);
    if (error instanceof ToolSetChanged) throw refuse(error.status, error.message);
    throw error;
  }
}

export function view(snapshot: ToolSnapshot): ToolsResponseDto {
  return {
    ok: true,
    count: snapshot.definitions.length,
    source: snapshot.source,
    tools: snapshot.definitions.map((t) => t.raw as AnyToolDefinitionDto),
    ...(snapshot.warnings.length > 0 && { warnings: [...snapshot.warnings] }),
  };
}

/**
 * `body` with `version` (of the set it shows, or belongs to) as the ETag header. A GET whose
 * If-None-Match names it is answered 304 with no body (RFC 9110 §13.1.2), also when it says
 * `Cache-Control: no-cache`: a browser's `fetch` adds that to every request a script gives an
 * If-None-Match of its own, and Express's freshness check, written for caches, would then answer
 * it in full (an admin UI polling the tools would get the whole set each time).
 */
export function tagged<T>(res: ServerResponse, body: T, version: string): T {
  res.setHeader('ETag', etagOf(version));
  const req = res.req as IncomingMessage | undefined;
  const ifNoneMatch = req?.headers['if-none-match'];
  if (
    ifNoneMatch &&
    (req.method === 'GET' || req.method === 'HEAD') &&
    ifMatchAllows(ifNoneMatch, version)
  )
    Object.defineProperty(req, 'fresh', { value: true }); // Express's send() then answers 304
  return body;
}

/** The request's If-Match header, if any. */
export function ifMatchOf(req: IncomingMessage): string | undefined {
  const header = req.headers['if-match'];
  return header === undefined || header === '' ? undefined : header;
}

/** The ETag of answers that show a set, and If-Match of changes, in Swagger. */
export const ETAG_HEADER = {
  ETag: {
    description:
      'The version of the set in force: the same set has the same ETag in every engine process and replica. Send it back as If-Match to change the set only if it is still this one',
    schema: { type: 'string', example: '"5d41402abc4b2a76b9719d911017c592b0a8d1c3"' },
  },
};

/**
 * If-Match on a change, and the 412 it may answer; `overtaken`: a change of one tool, made again
 * while others overtake it, which may also answer 409 (a whole set replaces what is in force).
 */
export function ApiIfMatch(overtaken: boolean): MethodDecorator {
  const decorators = [
    ApiHeader({
      name: 'If-Match',
      required: false,
      description:
        'The ETag of the set the change was made from (GET /api/tools): the change is made only if that set is still the one in force across the engine, else 412. Without it, a change of one tool is made on the set in force, whatever changed meanwhile; a whole set replaces whatever is in force',
    }),
    ApiResponse({
      status: 412,
      type: ToolsErrorDto,
      description:
        'If-Match does not name the set in force: the tools changed since they were read',
    }),
  ];
  if (overtaken)
    decorators.push(
      ApiResponse({
        status: 409,
        type: ToolsErrorDto,
        description: 'Other changes kept overtaking this one for 30 s; nothing was changed',
      }),
    );
  return applyDecorators(...decorators);
}

/** The request's body whole; 413 past `max` bytes. */
export async function readBody(req: IncomingMessage, max = MAX_BODY_BYTES): Promise<Buffer> {
  const body = await requestBody(req, max);
  if (!body) throw refuse(413, `request body is larger than ${max} bytes`);
  return body;
}

/** The raw request body as JSON, whatever its Content-Type; `expected` names it in errors. */
export async function readJson(req: IncomingMessage, expected: string): Promise<unknown> {
  const bytes = await readBody(req);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw refuse(400, 'request body is not valid UTF-8');
  }
  if (text.trim() === '') throw refuse(400, `request body is empty: expected ${expected}`);
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw refuse(400, `request body is not valid JSON: ${(error as Error).message}`);
  }
}
