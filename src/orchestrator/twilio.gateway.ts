import { Inject, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { WebSocketGateway, type OnGatewayConnection } from '@nestjs/websockets';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type WebSocket from 'ws';
import {
  appConfig,
  speechConfig,
  type AppConfig,
  type SpeechConfig,
} from '../config/app.config.js';
import { TwilioBridge } from './twilio-bridge.js';

/** A call's silence that ends the caller's utterance, when VAD_SILENCE_MS leaves it to clients. */
const CALL_SILENCE_MS = 700;

/** `/twilio`: Twilio Media Streams, each joined to a session of `/ws` (see TwilioBridge). */
@WebSocketGateway({ path: '/twilio' })
export class TwilioGateway implements OnGatewayConnection<WebSocket> {
  private readonly logger = new Logger('Twilio');

  constructor(
    private readonly http: HttpAdapterHost,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    @Inject(speechConfig.KEY) private readonly speech: SpeechConfig,
  ) {}

  handleConnection(socket: WebSocket): void {
    const bridge = new TwilioBridge(socket, {
      engineUrl: this.engineUrl(),
      // Read at each call: a key rotated in its file (SECRET_FILES_WATCH_SECS) counts at once.
      apiKey: this.config.ws.apiKey,
      silenceMs: this.speech.vad.silenceMs || CALL_SILENCE_MS,
      log: (line) => this.logger.log(line),
    });
    socket.on('message', (data: Buffer, isBinary) => {
      if (!isBinary) bridge.receive(data.toString());
    });
    socket.on('close', () => bridge.close());
  }

  /** The engine's own `/ws`, on the address it listens on (loopback for any address). */
  private engineUrl(): string {
    const server = this.http.httpAdapter.getHttpServer() as Server;
    const { address, port } = server.address() as AddressInfo;
    const host = ['0.0.0.0', '::', ''].includes(address)
      ? '127.0.0.1'
      : address.includes(':')
        ? `[${address}]`
        : address;
    return `ws://${host}:${port}/ws`;
  }
}
