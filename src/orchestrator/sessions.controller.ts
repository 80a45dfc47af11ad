import {
  applyDecorators,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Req,
  UseGuards,
} from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { appConfig, type AppConfig } from '../config/app.config.js';
import {
  ApiBearerAuth,
  ApiBody,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ToolsErrorDto } from '../tools/dto/tool-definition.dto.js';
import { AdminKeyGuard } from '../tools/admin-key.guard.js';
import { readJson, refuse } from '../tools/tools-http.js';
import { NoteAddedDto, NoteDto, readNote, type NoteAnswer } from './dto/note.dto.js';
import {
  AgentAssignedDto,
  AssignAgentDto,
  readAssignAgent,
  type AgentAnswer,
} from './dto/assign-agent.dto.js';
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
  private async found<T>(op: SessionsOp, id: string, data?: unknown): Promise<T> {
    const answer = await this.sessions.one<T>(op, id, data);
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
    // A replica of another version may answer in another shape: what is no summary is left out.
    const sessions = (await this.sessions.everywhere('list'))
      .flatMap((answer) => (Array.isArray(answer) ? (answer as unknown[]) : []))
      .filter(isSummary)
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

  @Post(':id/notes')
  @HttpCode(200)
  @ApiOperation({
    summary: "Tell an open session's model what the application knows and the user did not say",
    description:
      "A payment that went through, a record found, a change of plan: the model reads it as a user message of its own, marked as not the user's words, before the user's next words, or with `respond` answers it at once in a turn of its own. A turn in progress is not cut: the note waits for its end (as a client's `note` does; at most 20 waiting).",
  })
  @OneSession()
  @ApiBody({ type: NoteDto })
  @ApiOkResponse({ type: NoteAddedDto })
  @ApiResponse({ status: 400, type: ToolsErrorDto, description: 'A body that is no note' })
  @ApiResponse({
    status: 409,
    type: ToolsErrorDto,
    description: '20 notes already wait for the turn in progress to end',
  })
  @ApiResponse({
    status: 503,
    type: ToolsErrorDto,
    description: 'The engine is stopping: a note to respond to would start a turn',
  })
  async addNote(@Param('id') id: string, @Req() req: IncomingMessage): Promise<NoteAddedDto> {
    this.assertKeySet();
    const note = readNote(await readJson(req, 'a note: {"text": "…", "respond": false}'));
    if (typeof note === 'string') throw refuse(400, note);
    const answer = await this.found<NoteAnswer>('note', id, {
      text: note.text,
      respond: note.respond ?? false,
    });
    if (answer.ok) return answer;
    throw refuse(answer.refused === 'shutting_down' ? 503 : 409, answer.error);
  }

  @Post(':id/agent')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Give an open session to an assistant',
    description:
      "From the session's next request on (a turn in progress goes on), the assistant's instructions, tools, voice and language, as after a handoff or a client's session.update with agent; its client gets session.updated. For a supervisor who moves a call to another line's assistant. SESSION_AGENTS, which bounds what clients choose, does not bind an administrator.",
  })
  @OneSession()
  @ApiBody({ type: AssignAgentDto })
  @ApiOkResponse({ type: AgentAssignedDto })
  @ApiResponse({
    status: 400,
    type: ToolsErrorDto,
    description: 'A body that names no assistant, or one the active tools have no handoff to',
  })
  async assignAgent(
    @Param('id') id: string,
    @Req() req: IncomingMessage,
  ): Promise<AgentAssignedDto> {
    this.assertKeySet();
    const read = readAssignAgent(await readJson(req, 'an assistant: {"agent": "billing"}'));
    if (typeof read === 'string') throw refuse(400, read);
    const answer = await this.found<AgentAnswer>('agent', id, { agent: read.agent });
    if (answer.ok) return answer;
    throw refuse(400, answer.error);
  }
}

/** A session's summary as a process answers it: an object with its id and when it opened. */
function isSummary(value: unknown): value is SessionSummaryDto {
  const { session_id, opened_at } = (value ?? {}) as Record<string, unknown>;
  return typeof session_id === 'string' && typeof opened_at === 'string';
}
