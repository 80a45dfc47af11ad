import { Inject, Logger, type OnModuleDestroy } from '@nestjs/common';
import { WebSocketGateway, type OnGatewayConnection, type OnGatewayInit } from '@nestjs/websockets';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { appConfig, type AppConfig } from '../config/app.config.js';
import { parseClientMessage } from './protocol/client-messages.js';
import type { ServerEvent } from './protocol/server-events.js';
import { Session } from './session.js';
import { TurnManager } from './turn-manager.service.js';

type LiveSocket = WebSocket & { isAlive?: boolean };

/** `/ws`: one session per connection; the protocol lives in ./protocol, the turn loop in TurnManager. */
@WebSocketGateway({ path: '/ws' })
export class AgentGateway
  implements OnGatewayInit<WebSocketServer>, OnGatewayConnection<LiveSocket>, OnModuleDestroy
{
  private readonly logger = new Logger(AgentGateway.name);
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly turns: TurnManager,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  afterInit(server: WebSocketServer): void {
    // Frames over the limit are refused by ws itself with close code 1009.
    (server.options as { maxPayload: number }).maxPayload = this.config.ws.maxMessageBytes;
    const every = this.config.ws.pingIntervalSecs * 1000;
    if (every > 0) {
      this.heartbeat = setInterval(() => {
        for (const socket of server.clients as Set<LiveSocket>) {
          if (socket.isAlive === false) {
            socket.terminate();
            continue;
          }
          socket.isAlive = false;
          socket.ping();
        }
      }, every);
      this.heartbeat.unref();
    }
  }

  onModuleDestroy(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
  }

  handleConnection(socket: LiveSocket): void {
    const session = new Session();
    socket.isAlive = true;
    socket.on('pong', () => (socket.isAlive = true));
    socket.on(
      'message',
      (data: RawData, isBinary: boolean) => void this.onMessage(socket, session, data, isBinary),
    );
    socket.on('close', () => void session.cancel());
    this.logger.log(`session opened (session_id=${session.id})`);
    this.send(socket, { type: 'session', session_id: session.id });
  }

  private send(socket: WebSocket, event: ServerEvent): void {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(event));
  }

  private async onMessage(
    socket: LiveSocket,
    session: Session,
    data: RawData,
    isBinary: boolean,
  ): Promise<void> {
    socket.isAlive = true;
    if (isBinary) {
      this.send(socket, {
        type: 'error',
        message: 'binary frames are not accepted: send JSON text messages',
      });
      return;
    }
    const text = Buffer.isBuffer(data)
      ? data.toString('utf8')
      : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8');
    const parsed = parseClientMessage(text);
    if ('error' in parsed) {
      this.send(socket, { type: 'error', message: parsed.error });
      return;
    }
    const { message } = parsed;
    if (message.type === 'interrupt') {
      await session.cancel();
      return;
    }
    await session.cancel();
    session.begin(
      (signal) =>
        new Promise<void>((resolve) => {
          this.turns.run(session, message.text, signal).subscribe({
            next: (event) => this.send(socket, event),
            complete: resolve,
          });
        }),
    );
  }
}
