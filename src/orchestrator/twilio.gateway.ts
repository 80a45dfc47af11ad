import { Inject, Logger } from '@nestjs/common';
import { WebSocketGateway, type OnGatewayConnection, type OnGatewayInit } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type WebSocket from 'ws';
import type { WebSocketServer } from 'ws';
import {
  appConfig,
  speechConfig,
  type AppConfig,
  type SpeechConfig,
} from '../config/app.config.js';
import { AgentGateway } from './agent.gateway.js';
import { TwilioBridge } from './twilio-bridge.js';
import { redirectCall, transferCall } from './twilio-rest.js';
import { streamAgain } from './twilio-voice.js';
import { currentKey } from '../config/bearer-key.js';
import { SessionStore } from '../sessions/session-store.js';
import { Lifecycle } from '../lifecycle/lifecycle.service.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';
import { checkTwilioSignature, withQuery } from './twilio-signature.js';

/** How long a stopping engine waits for Twilio to take the new streams of its calls. */
const CARRY_OVER_WAIT_MS = 5000;

/** A call's silence that ends the caller's utterance, when VAD_SILENCE_MS leaves it to clients. */
const CALL_SILENCE_MS = 700;

/** `/twilio`: Twilio Media Streams, each joined to a session of `/ws` (see TwilioBridge). */
@WebSocketGateway({ path: '/twilio' })
export class TwilioGateway implements OnGatewayConnection<WebSocket>, OnGatewayInit {
  private readonly logger = new Logger('Twilio');
  /** Calls being given a new stream as the engine stops (see TwilioBridge's carryOver). */
  private readonly carrying = new Set<Promise<void>>();

  constructor(
    private readonly agent: AgentGateway,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    @Inject(speechConfig.KEY) private readonly speech: SpeechConfig,
    private readonly store: SessionStore,
    private readonly metrics: EngineMetrics,
    lifecycle: Lifecycle,
  ) {
    lifecycle.lastly(
      'the calls carried over',
      async () => void (await Promise.all(this.carrying)),
      { ms: CARRY_OVER_WAIT_MS },
    );
  }

  /**
   * With TWILIO_AUTH_TOKEN, an upgrade Twilio did not sign is refused with HTTP 403 before any
   * session is opened. The token is read at each upgrade: one rotated in its file counts at once.
   */
  afterInit(server: WebSocketServer): void {
    const options = server.options as { verifyClient?: unknown };
    options.verifyClient = (
      { req }: { req: IncomingMessage },
      done: (ok: boolean, status?: number, message?: string) => void,
    ) => {
      const { authToken, webhooksSharedKey: sharedKey, streamUrl } = this.speech.twilio;
      if (!authToken && !sharedKey) return done(true);
      checkTwilioSignature(req, { authToken, sharedKey }, streamUrl).then(
        (check) => {
          if (check.ok) return done(true);
          this.logger.warn(`Twilio stream refused: ${check.reason}`);
          done(false, 403, 'Twilio signature missing or wrong');
        },
        // A fault of the check's own refuses that upgrade, never ends the process.
        (error: Error) => {
          this.logger.error(`Twilio stream refused: ${error.message}`, error.stack);
          done(false, 500, 'the signature could not be checked');
        },
      );
    };
  }

  handleConnection(socket: WebSocket, request?: IncomingMessage): void {
    const { twilio } = this.speech;
    // Where Twilio asks what next once a transferred call's dial ends (`/twilio/voice`).
    const voiceUrl = twilio.voiceUrl || `https://${request?.headers.host ?? ''}/twilio/voice`;
    const bridge = new TwilioBridge(socket, {
      connect: (query) => this.agent.connectLocal(query),
      // Read at each call: a key rotated in its file (SECRET_FILES_WATCH_SECS) counts at once.
      apiKey: this.config.ws.apiKey,
      silenceMs: this.speech.vad.silenceMs || CALL_SILENCE_MS,
      // Read at each transfer: a token rotated in its file counts at once. A call whose session
      // can be resumed comes back to the agent when no one answers.
      transfer: (callSid, to, resumeToken) =>
        transferCall(twilio, callSid, to, {
          timeoutSecs: twilio.dialTimeoutSecs,
          ...(resumeToken && { action: withQuery(voiceUrl, 'resume', resumeToken) }),
        }),
      // Only a session kept in Redis can be resumed by another replica.
      sharedSessions: this.store.kind === 'redis',
      // Through Twilio's API, with its account (the token read at each call: rotated).
      ...(twilio.accountSid && {
        carryOver: (callSid: string, parameters: [string, string][]) => {
          const url = twilio.streamUrl || `wss://${request?.headers.host ?? ''}/twilio`;
          const token = currentKey(this.config.ws.apiKey);
          const carried = streamAgain({ url, token }, parameters).then((twiml) =>
            redirectCall(twilio, callSid, twiml),
          );
          // The engine is stopping: it waits for the call to have its new stream.
          const settled = carried.then(
            () => this.metrics.telephony.callCarriedOver('carried'),
            () => this.metrics.telephony.callCarriedOver('failed'),
          );
          this.carrying.add(settled);
          void settled.then(() => this.carrying.delete(settled));
          return carried;
        },
      }),
      unanswered: twilio.transferUnanswered,
      log: (line) => this.logger.log(line),
    });
    socket.on('message', (data: Buffer, isBinary) => {
      if (isBinary) return;
      // A fault of the engine's own with one frame ends that call, never the process.
      try {
        bridge.receive(data.toString());
      } catch (error) {
        this.logger.error(
          `Twilio stream frame failed, the call is ended: ${(error as Error).message}`,
          (error as Error).stack,
        );
        bridge.close(1011);
      }
    });
    socket.on('close', () => bridge.close());
  }
}
