import { applyDecorators, Controller, Delete, Get, Inject, Param, UseGuards } from '@nestjs/common';
import { appConfig, type AppConfig } from '../config/app.config.js';
import {
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ToolsErrorDto } from '../tools/dto/tool-definition.dto.js';
import { AdminKeyGuard } from '../tools/admin-key.guard.js';
import { refuse } from '../tools/tools-http.js';
import {
  SessionClosedDto,
  SessionDetailDto,
  SessionListDto,
  type SessionSummaryDto,
} from './dto/sessions.dto.js';
import { OpenSessions } from './open-sessions.service.js';
import type { SessionsOp } from '../cluster/messages.js';

/** The `id` of an operation on one session, and its 404 when no such session is open. */
const OneSession = () =>
  applyDecorators(
    ApiParam({ name: 'id', description: 'The session_id of its `session` event' }),
    ApiResponse({
      status: 404,
      type: ToolsErrorDto,
      description: 'No such session is open on this engine',
    }),
  );

/**
 * `/api/sessions`: the sessions open on this engine (all its processes, and with Redis all its
 * replicas) — listed, read (an operator's look at a conversation, a handover to a person), or
 * closed for good (an abusive client).
 */
@ApiTags('sessions')
@ApiBearerAuth('admin')
@UseGuards(AdminKeyGuard)
@ApiResponse({
  status: 401,
  description: 'ADMIN_API_KEY is set and the request lacks it',
  type: ToolsErrorDto,
})
@ApiResponse({
  status: 403,
  description: 'ADMIN_API_KEY is not set: conversations are never open to whoever reaches the port',
  type: ToolsErrorDto,
})
@Controller('api/sessions')
export class SessionsController {
  constructor(
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    private readonly sessions: OpenSessions,
  ) {}

  /** The one answer of the process that has session `id`; 404 when none has it. */
  private async found<T>(op: SessionsOp, id: string): Promise<T> {
    const answer = await this.sessions.one<T>(op, id);
    if (answer === undefined)
      throw refuse(404, `no session ${JSON.stringify(id.slice(0, 100))} is open on this engine`);
    return answer;
  }

  /** Users' conversations are read here: never by whoever reaches the port. */
  private assertKeySet(): void {
    if (!this.config.adminApiKey)
      throw refuse(
        403,
        "set ADMIN_API_KEY to use /api/sessions: it reads and closes users' conversations",
      );
  }

  @Get()
  @ApiOperation({
    summary:
      'The sessions open on this engine: every process of ENGINE_PROCESSES, and with SESSION_STORE_URL every replica sharing that Redis',
  })
  @ApiOkResponse({ type: SessionListDto })
  async listSessions(): Promise<SessionListDto> {
    this.assertKeySet();
    const sessions = (await this.sessions.everywhere('list'))
      .flatMap((answer) => (Array.isArray(answer) ? (answer as SessionSummaryDto[]) : []))
      .sort((a, b) => a.opened_at.localeCompare(b.opened_at));
    return { ok: true, count: sessions.length, sessions };
  }

  @Get(':id')
  @ApiOperation({ summary: "An open session's settings and conversation" })
  @OneSession()
  @ApiOkResponse({ type: SessionDetailDto })
  readSession(@Param('id') id: string): Promise<SessionDetailDto> {
    this.assertKeySet();
    return this.found<SessionDetailDto>('read', id);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Close an open session for good',
    description:
      'Its turn in progress is cancelled, its connection closed with code 4002 ("closed by an administrator"), and it cannot be resumed.',
  })
  @OneSession()
  @ApiOkResponse({ type: SessionClosedDto })
  closeSession(@Param('id') id: string): Promise<SessionClosedDto> {
    this.assertKeySet();
    return this.found<SessionClosedDto>('close', id);
  }
}
