import { Controller, HttpCode, Inject, Logger, Post, Req, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { IncomingMessage } from 'node:http';
import { currentKey } from '../config/bearer-key.js';
import {
  appConfig,
  sessionsConfig,
  speechConfig,
  type AppConfig,
  type SessionsConfig,
  type SpeechConfig,
} from '../config/app.config.js';
import { placedSession } from './placed-session.js';
import { SessionKeeper } from './session-keeper.service.js';
import { TurnManager } from './turn-manager.service.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';
import { ToolsErrorDto } from '../tools/dto/tool-definition.dto.js';
import { AdminKeyGuard } from '../tools/admin-key.guard.js';
import { readJson, refuse } from '../tools/tools-http.js';
import { PlaceCallDto, PlacedCallDto, readPlaceCall } from './dto/place-call.dto.js';
import { placeCall } from './twilio-rest.js';
import type { Session } from './session.js';
import { withQuery } from './twilio-signature.js';
import { placedCall, placedVariables, voiceUrlOf } from './twilio-voice.js';

/**
 * `POST /api/calls`: the agent calls someone (an appointment reminder, a call back): Twilio places
 * the call, and once it is answered streams it to `/twilio`, where a session greets the person.
 */
@ApiTags('calls')
@ApiBearerAuth('admin')
@UseGuards(AdminKeyGuard)
@Controller('api/calls')
export class CallsController {
  private readonly logger = new Logger('Twilio');

  constructor(
    @Inject(appConfig.KEY) private readonly app: AppConfig,
    @Inject(speechConfig.KEY) private readonly speech: SpeechConfig,
    @Inject(sessionsConfig.KEY) private readonly sessions: SessionsConfig,
    private readonly keeper: SessionKeeper,
    private readonly metrics: EngineMetrics,
    private readonly turns: TurnManager,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Place a call: the agent calls a number, and greets who answers',
    description:
      'Through Twilio\'s REST API (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN): the call, from `from` or TWILIO_FROM_NUMBER, runs TwiML that streams it to TWILIO_STREAM_URL (the engine\'s /twilio as Twilio reaches it) once answered; the session says `greeting` first, and has the variables given, with user_number (the number called), agent_number, call_direction "outbound" and twilio_call_sid. Needs ADMIN_API_KEY: calls cost money and reach anyone.',
  })
  @ApiBody({ type: PlaceCallDto })
  @ApiCreatedResponse({ type: PlacedCallDto, description: 'Twilio placed the call (it rings)' })
  @ApiResponse({ status: 400, type: ToolsErrorDto, description: 'A body that is no call' })
  @ApiResponse({
    status: 401,
    type: ToolsErrorDto,
    description: 'ADMIN_API_KEY is set and the request lacks it',
  })
  @ApiResponse({
    status: 403,
    type: ToolsErrorDto,
    description: 'ADMIN_API_KEY is not set: calls are never placed for whoever reaches the port',
  })
  @ApiResponse({
    status: 502,
    type: ToolsErrorDto,
    description: "Twilio's API refused the call, or could not be reached (its reason)",
  })
  @ApiResponse({
    status: 503,
    type: ToolsErrorDto,
    description: 'TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN or TWILIO_STREAM_URL is not set',
  })
  async place(@Req() req: IncomingMessage): Promise<PlacedCallDto> {
    if (!this.app.adminApiKey)
      throw refuse(403, 'set ADMIN_API_KEY to use /api/calls: calls cost money and reach anyone');
    const call = readPlaceCall(await readJson(req, 'a call: {"to": "+15550123"}'));
    if (typeof call === 'string') throw refuse(400, call);
    const { twilio } = this.speech;
    const missing = [
      ['TWILIO_ACCOUNT_SID', twilio.accountSid],
      ['TWILIO_AUTH_TOKEN', twilio.authToken],
      ['TWILIO_STREAM_URL', twilio.streamUrl],
    ].flatMap(([name, value]) => (value ? [] : [name]));
    if (missing.length > 0)
      throw refuse(
        503,
        `calls are placed through Twilio, and streamed to the engine at the URL Twilio reaches it: set ${missing.join(', ')}`,
      );
    const from = call.from ?? twilio.fromNumber;
    if (!from) throw refuse(400, '"from" is required: TWILIO_FROM_NUMBER is not set');
    const variables = placedVariables(call.to, from, call.variables ?? {});
    const session = await this.sessionFor(call, variables);
    const resume = session?.resumeToken;
    const twiml = await placedCall(
      { url: twilio.streamUrl, token: currentKey(this.app.ws.apiKey) },
      {
        greeting: call.greeting?.trim() ?? '',
        interruptible: call.greeting_interruptible ?? twilio.greetingInterruptible,
        variables,
        resume,
      },
    );
    let sid: string;
    try {
      sid = await placeCall(twilio, {
        to: call.to,
        from,
        twiml,
        // Twilio posts who answered to /twilio/voice?machine=<session>: that session acts on it.
        ...(session?.machine && {
          machineCallback: withQuery(voiceUrlOf(twilio), 'machine', session.id),
        }),
        ...(call.status_callback && { statusCallback: call.status_callback }),
      });
    } catch (error) {
      this.metrics.telephony.callPlaced('refused');
      this.logger.warn(`call not placed: ${(error as Error).message}`);
      throw refuse(502, (error as Error).message);
    }
    this.metrics.telephony.callPlaced('placed');
    this.logger.log(`Twilio call ${sid} placed`);
    return { ok: true, call_sid: sid, to: call.to, from };
  }

  /**
   * The session the call begins with, kept in the session store until the call's stream resumes
   * it; undefined without a store (SESSION_RESUME_SECS=0), when the variables go as the stream's
   * parameters and a call's own settings cannot be kept.
   */
  private async sessionFor(
    call: PlaceCallDto,
    variables: Record<string, string>,
  ): Promise<Session | undefined> {
    if (!this.keeper.enabled) {
      const kept: string[] = (
        ['instructions', 'language', 'timezone', 'voice', 'max_secs', 'agent', 'voicemail'] as const
      ).filter((field) => call[field] !== undefined);
      // `hang_up_on_machine: false` asks for nothing to be kept.
      if (call.hang_up_on_machine === true) kept.push('hang_up_on_machine');
      if (kept.length > 0)
        throw refuse(
          503,
          `a call's ${kept.join(', ')} wait for it in the session store: set SESSION_RESUME_SECS above 0`,
        );
      return undefined;
    }
    const { language, vad, idle } = this.speech;
    const session = placedSession(
      call,
      variables,
      {
        language,
        vadSilenceMs: vad.silenceMs,
        unfinishedWaitMs: vad.unfinishedWaitMs,
        idleSecs: idle.secs,
        timeZone: this.sessions.timeZone,
      },
      {
        instructionsMaxChars: this.sessions.instructionsMaxChars,
        maxSecs: this.sessions.limit.secs,
        agents: () => this.turns.agents(),
      },
    );
    if (typeof session === 'string') throw refuse(400, session);
    await this.keeper.save(session);
    return session;
  }
}
