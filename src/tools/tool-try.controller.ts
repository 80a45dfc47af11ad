import { Controller, HttpCode, HttpStatus, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { MAX_JSON_DEPTH, nestedDeeper } from '../common/nesting.js';
import type { IncomingMessage } from 'node:http';
import {
  ToolCallRequestDto,
  ToolCallResponseDto,
  type ToolCallProgressDto,
} from './dto/tool-call.dto.js';
import { ToolsErrorDto } from './dto/tool-definition.dto.js';
import { readVariables } from './session-variables.js';
import { ToolExecutor, type ToolProgress } from './tool-executor.js';
import { ToolRegistry } from './tool-registry.service.js';
import { SessionEnds } from './session-ends.js';
import { assertLlmEnabled, notCallable, readJson, refuse, ToolsAdminApi } from './tools-http.js';

/**
 * `POST /api/tools/{name}/call`: runs one call of an active tool as the model would, and answers
 * what the model would read, so that an admin can try a definition (its URL, headers, secrets,
 * response_query, limits) without a conversation.
 */
@ToolsAdminApi()
@Controller('api/tools/:name/call')
@ApiParam({ name: 'name', description: 'The tool name', example: 'get_weather' })
export class ToolTryController {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly executor: ToolExecutor,
    private readonly sessionEnds: SessionEnds,
  ) {}

  @Post()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Run one call of a tool as the model would, and see what the model would read',
    description:
      'The arguments are checked and typed by the tool\'s parameters, the request is sent, and the answer is what the model would read (its error text when the call fails: then `ok` is false, still with HTTP 200). A tool with "confirm": true runs without asking: the admin is the one who approves. The call ends with the request (a client that goes away cancels it).',
  })
  @ApiBody({ type: ToolCallRequestDto, required: false })
  @ApiOkResponse({ type: ToolCallResponseDto })
  @ApiResponse({ status: 400, type: ToolsErrorDto, description: 'A body that is not a call' })
  @ApiResponse({
    status: 404,
    type: ToolsErrorDto,
    description: 'No tool of that name the model could call',
  })
  async call(
    @Param('name') name: string,
    @Req() req: IncomingMessage,
  ): Promise<ToolCallResponseDto> {
    assertLlmEnabled(this.registry);
    const snapshot = this.registry.active();
    if (!snapshot.byName.has(name)) throw notCallable(this.registry, name);
    const body = await readCall(req);
    const variables = readVariables(body.variables ?? {});
    if (typeof variables === 'string') throw refuse(400, variables);
    const cancel = new AbortController();
    const onClose = () => cancel.abort();
    req.socket.once('close', onClose);
    const started = performance.now();
    // A session of its own, over with the call (a `per_session` MCP tool's connection closes),
    // or the run of tries it names, over TRY_SESSION_MS after its last.
    const sessionId = `admin-api-${body.session ?? randomUUID()}`;
    this.sessionEnds.opened(sessionId);
    const progress = new TriedProgress(started);
    try {
      const outcome = await this.executor.execute({
        id: `try_${randomUUID()}`,
        name,
        args: body.arguments ?? {},
        snapshot,
        signal: cancel.signal,
        context: {
          sessionId,
          turnId: 'try',
          modality: 'text',
          channel: 'api',
          state: { value: {} },
          events: [],
          variables,
          progress: (_id, update) => progress.add(update),
        },
      });
      return {
        ok: outcome.ok,
        result: outcome.text,
        ms: Math.round(performance.now() - started),
        ...(outcome.cached && { cached: true }),
        ...(outcome.logs && { logs: outcome.logs }),
        ...(progress.list.length > 0 && { progress: progress.list }),
      };
    } finally {
      req.socket.off('close', onClose);
      this.sessionEnds.closed(sessionId, body.session === undefined ? 0 : TRY_SESSION_MS);
    }
  }
}

/** A tried call's progress updates, timed from its start: the first 99 and the last. */
class TriedProgress {
  readonly list: ToolCallProgressDto[] = [];
  constructor(private readonly started: number) {}
  add(update: ToolProgress): void {
    if (this.list.length === MAX_TRIED_PROGRESS) this.list.pop();
    this.list.push({ ms: Math.round(performance.now() - this.started), ...update });
  }
}
const MAX_TRIED_PROGRESS = 100;

/** How long a named run of tries keeps its `per_session` connections after its last try. */
const TRY_SESSION_MS = 5 * 60_000;
const SESSION_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The body: empty (no arguments), or `{arguments?: object, variables?: object, session?: string}`. */
async function readCall(req: IncomingMessage): Promise<ToolCallRequestDto> {
  const empty =
    req.headers['content-length'] === '0' ||
    (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined);
  if (empty) return {};
  const body = await readJson(req, 'a call: {"arguments": {...}}');
  const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(body))
    throw refuse(
      400,
      'request body must be a JSON object: {"arguments": {...}, "variables": {...}, "session": "..."}',
    );
  const { arguments: args, variables, session, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length)
    throw refuse(
      400,
      `unknown field '${unknown[0]}': a call has "arguments", "variables" and "session"`,
    );
  if (session !== undefined && (typeof session !== 'string' || !SESSION_NAME.test(session)))
    throw refuse(400, `"session" must be 1 to 64 letters, digits, '_', '.', ':' or '-'`);
  if (args !== undefined && !isObject(args)) throw refuse(400, '"arguments" must be a JSON object');
  if (nestedDeeper(args, MAX_JSON_DEPTH))
    throw refuse(400, `"arguments" are nested more than ${MAX_JSON_DEPTH} levels deep`);
  if (variables !== undefined && !isObject(variables))
    throw refuse(400, '"variables" must be a JSON object');
  return body as ToolCallRequestDto;
}
