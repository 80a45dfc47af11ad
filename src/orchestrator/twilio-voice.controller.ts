import { Controller, HttpCode, Inject, Logger, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { currentKey } from '../config/bearer-key.js';
import {
  appConfig,
  speechConfig,
  type AppConfig,
  type SpeechConfig,
} from '../config/app.config.js';
import { readBody, refuse } from '../tools/tools-http.js';
import { checkTwilioWebhook } from './twilio-signature.js';
import { OpenSessions } from './open-sessions.service.js';
import { afterDial, answerCall, dialAnswered, machineVerdict } from './twilio-voice.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';

/** How often, and how far apart, a machine's verdict looks for the call's session. */
const MACHINE_TRIES = 30;
const MACHINE_RETRY_MS = 500;

/** A webhook's form: Twilio's parameters of a call are a few hundred bytes. */
const MAX_FORM_BYTES = 64 * 1024;

/**
 * `POST /twilio/voice`: a phone number's "A call comes in" webhook, answered with the TwiML that
 * connects the call to `/twilio`: no TwiML of one's own to host.
 */
@ApiTags('twilio')
@Controller('twilio/voice')
export class TwilioVoiceController {
  private readonly logger = new Logger('Twilio');

  constructor(
    @Inject(appConfig.KEY) private readonly app: AppConfig,
    @Inject(speechConfig.KEY) private readonly speech: SpeechConfig,
    private readonly metrics: EngineMetrics,
    private readonly sessions: OpenSessions,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: "Twilio's webhook for a call coming in: TwiML that connects it to /twilio",
    description:
      "Set as the phone number's \"A call comes in\" webhook (HTTP POST). Answers <Connect><Stream url=\"TWILIO_STREAM_URL, or wss://{Host}/twilio\"> with the parameters token (WS_API_KEY's current key, when set), greeting (TWILIO_GREETING, said first; with greeting_interruptible false when TWILIO_GREETING_INTERRUPTIBLE is false, said whole) and the call's numbers as the session's variables user_number (From) and agent_number (To), with call_direction inbound, and agent with ?agent=. With TWILIO_AUTH_TOKEN (or TWILIO_WEBHOOKS_SHARED_KEY), only requests Twilio signed (X-Twilio-Signature over TWILIO_VOICE_URL, or https://{Host}{path}, and the form) are answered. With ?resume=<token>, the action of a transfer's <Dial> (the engine sets it): a dial someone answered (DialCallStatus completed) is answered <Hangup/>; one busy, unanswered or failed streams the call back to its session (parameters resume and transfer_status), where the agent says TWILIO_TRANSFER_UNANSWERED. With ?machine=<session_id>, the answering-machine detection callback of a call placed with voicemail or hang_up_on_machine (the engine sets it; TWILIO_AUTH_TOKEN needed): AnsweredBy machine_* has the session leave its voicemail and end the call, fax ends it; human and unknown change nothing. Answered <Response/> at once.",
  })
  @ApiQuery({
    name: 'agent',
    required: false,
    description:
      "The assistant calls to this number begin with (a handoff tool's, by its name or the tool's, as session.update's agent): a billing line's webhook /twilio/voice?agent=billing. Sent as the stream's parameter agent; one the tools lack leaves the call with the engine's own assistant (logged)",
  })
  @ApiQuery({
    name: 'resume',
    required: false,
    description:
      "Set by the engine on a transfer's <Dial action>: the resume token of the session the call comes back to",
  })
  @ApiQuery({
    name: 'machine',
    required: false,
    description:
      "Set by the engine on a placed call's AsyncAmdStatusCallback: the session_id of the call's session",
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({
    description: "Twilio's parameters of the call (all it sends are accepted)",
    schema: {
      type: 'object',
      properties: {
        CallSid: { type: 'string', example: 'CA0123456789abcdef0123456789abcdef' },
        From: { type: 'string', example: '+15550100' },
        To: { type: 'string', example: '+15550199' },
        DialCallStatus: {
          type: 'string',
          description: "With ?resume: how a transfer's dial ended",
          example: 'no-answer',
        },
        AnsweredBy: {
          type: 'string',
          description: 'With ?machine: who answered (human, machine_end_beep, fax, unknown, …)',
          example: 'machine_end_beep',
        },
      },
      additionalProperties: { type: 'string' },
    },
  })
  @ApiProduces('text/xml')
  @ApiOkResponse({ description: 'The TwiML', schema: { type: 'string' } })
  @ApiForbiddenResponse({
    description:
      'Not signed by Twilio with TWILIO_AUTH_TOKEN (or TWILIO_WEBHOOKS_SHARED_KEY); or WS_API_KEY is set without either, when the TwiML would hand WS_API_KEY to whoever asks',
  })
  async voice(
    @Req() req: IncomingMessage,
    @Res({ passthrough: true }) res: ServerResponse,
  ): Promise<string> {
    const form = new URLSearchParams((await readBody(req, MAX_FORM_BYTES)).toString('utf8'));
    const call = Object.fromEntries(form);
    const {
      authToken,
      webhooksSharedKey: sharedKey,
      voiceUrl,
      streamUrl,
      greeting,
      greetingInterruptible: interruptible,
    } = this.speech.twilio;
    // Read at each call: a key rotated in its file (SECRET_FILES_WATCH_SECS) counts at once.
    const apiKey = this.app.ws.apiKey;
    const path = (req as { originalUrl?: string }).originalUrl ?? req.url;
    const query = new URL(path ?? '/', 'http://engine').searchParams;
    if (authToken || sharedKey) {
      const check = await checkTwilioWebhook(
        { headers: req.headers, url: path },
        { authToken, sharedKey },
        voiceUrl,
        call,
      );
      if (!check.ok) {
        this.logger.warn(`Twilio call webhook refused: ${check.reason}`);
        throw refuse(403, 'Twilio signature missing or wrong');
      }
    } else if (query.has('machine')) {
      // Whoever posts it ends a call: only Twilio's word counts.
      throw refuse(403, 'answering-machine verdicts are taken only signed: set TWILIO_AUTH_TOKEN');
    } else if (apiKey) {
      const reason =
        'WS_API_KEY is set and TWILIO_AUTH_TOKEN is not: the TwiML, which carries WS_API_KEY, is given only to requests Twilio signed';
      this.logger.warn(`Twilio call webhook refused: ${reason}`);
      throw refuse(403, reason);
    }
    const url = streamUrl || `wss://${req.headers.host ?? ''}/twilio`;
    const token = currentKey(apiKey);
    const sid = call.CallSid ?? '(no CallSid)';
    // A transferred call's dial has ended (its `<Dial action>`): back to its session, unanswered.
    const resume = query.get('resume');
    const machine = query.get('machine');
    let twiml: string;
    if (machine !== null) {
      void this.answeredBy(machine, call);
      twiml = '<?xml version="1.0" encoding="UTF-8"?><Response/>';
    } else if (resume !== null) {
      this.logger.log(`Twilio call ${sid} transfer ended: ${call.DialCallStatus ?? 'no status'}`);
      this.metrics.telephony.transferEnded(dialAnswered(call) ? 'answered' : 'unanswered');
      twiml = await afterDial({ url, token, call }, resume);
    } else {
      this.logger.log(`Twilio call ${sid} answered: streamed to ${url}`);
      const agent = query.get('agent') ?? '';
      twiml = await answerCall({ url, token, call }, { greeting, interruptible }, agent);
    }
    // Set here, not by a decorator: a refusal above is JSON.
    res.setHeader('Content-Type', 'text/xml; charset=utf-8');
    return twiml;
  }

  /**
   * A placed call's answering-machine detection says who answered: a machine (its greeting over)
   * has the session `id` leave its voicemail and end the call, a fax ends it. The verdict may come
   * before the call's stream has reached its session: it is tried for 15 seconds.
   */
  private async answeredBy(id: string, call: Record<string, string>): Promise<void> {
    const verdict = machineVerdict(call.AnsweredBy);
    this.metrics.telephony.callAnswered(verdict);
    const sid = call.CallSid ?? '(no CallSid)';
    this.logger.log(`Twilio call ${sid} answered by ${call.AnsweredBy ?? 'no one said'}`);
    if (verdict !== 'machine' && verdict !== 'fax') return;
    for (let tries = 1; ; tries++) {
      try {
        if (await this.sessions.one(verdict, id)) return;
      } catch (error) {
        this.logger.warn(`Twilio call ${sid}: ${(error as Error).message}`);
      }
      if (tries === MACHINE_TRIES) break;
      await new Promise((done) => setTimeout(done, MACHINE_RETRY_MS));
    }
    this.logger.warn(
      `Twilio call ${sid} was answered by a ${verdict}, and its session is open nowhere: nothing left`,
    );
  }
}
