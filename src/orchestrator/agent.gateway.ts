import { Inject, Logger, type OnModuleDestroy } from '@nestjs/common';
import { WebSocketGateway, type OnGatewayConnection, type OnGatewayInit } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { RawData, WebSocketServer } from 'ws';
import {
  appConfig,
  sessionsConfig,
  toolsConfig,
  type AppConfig,
  type SessionsConfig,
  type ToolsConfig,
} from '../config/app.config.js';
import { Pacer } from '../common/pacer.js';
import { Lifecycle } from '../lifecycle/lifecycle.service.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';
import { SpeechService } from '../speech/speech.service.js';
import {
  CLOSED_BY_ADMIN,
  closeSocket,
  endReason,
  GOING_AWAY,
  TAKEN_OVER,
  TRY_AGAIN_LATER,
  type ClosingSocket,
} from './close-codes.js';
import { Conversation } from './conversation.js';
import { startHeartbeat, type WatchedSocket } from './heartbeat.js';
import { LocalSocket } from './local-socket.js';
import { ParkedCalls } from './background-calls.js';
import { ReadLimit } from './read-limit.js';
import { SessionKeeper } from './session-keeper.service.js';
import { compilePhrases, type Phrase } from './spoken-answer.js';
import { Session } from './session.js';
import { parseTraceparent } from '../common/trace-context.js';
import { SessionDirectory } from './session-directory.js';
import { OpenSessions } from './open-sessions.service.js';
import { TurnManager } from './turn-manager.service.js';
import { socketSender } from './socket-sender.js';
import { bytesOf, resumeTokenOf, upgradeCheck } from './upgrade-check.js';
import type { SettingsLimits } from './settings-update.js';
import { TurnLatency } from './turn-latency.js';

type LiveSocket = ClosingSocket & WatchedSocket;

/** One open connection: its conversation, and when it has ended (turn over, session saved). */
interface Connection {
  conversation: Conversation;
  ended: Promise<void>;
}

/** `/ws`: a session per connection; messages go to its Conversation. Kept thin on purpose. */
@WebSocketGateway({ path: '/ws' })
export class AgentGateway
  implements OnGatewayInit<WebSocketServer>, OnGatewayConnection<LiveSocket>, OnModuleDestroy
{
  private readonly logger = new Logger(AgentGateway.name);
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly open = new Map<LiveSocket, Connection>();
  /** Client messages of all sessions take turns through it, a slice of the event loop at a time. */
  private readonly pacer = new Pacer();
  /** TOOL_CONFIRM_YES and TOOL_CONFIRM_NO, ready to match. */
  private readonly confirmPhrases: readonly Phrase[];
  /** LLM_TOOLS_ENABLED=false: sessions may declare no tools of their own either. */
  private readonly toolsOff: boolean;

  constructor(
    private readonly turns: TurnManager,
    private readonly speech: SpeechService,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    @Inject(sessionsConfig.KEY) private readonly sessionSettings: SessionsConfig,
    private readonly lifecycle: Lifecycle,
    private readonly keeper: SessionKeeper,
    private readonly metrics: EngineMetrics,
    @Inject(toolsConfig.KEY) private readonly tools: ToolsConfig,
    private readonly directory: SessionDirectory,
    /** Background calls of closed connections, kept for a client that resumes their session. */
    private readonly parked: ParkedCalls,
    private readonly sessions: OpenSessions,
  ) {
    this.confirmPhrases = compilePhrases({ yes: tools.confirmYes, no: tools.confirmNo });
    this.toolsOff = tools.explicit === false;
    lifecycle.onDrain((deadline) => this.drain(deadline));
    // Resumed in another process: a connection here holding the session is closed once the store
    // refuses its save (the newest connection owns the session: news of an older resume leaves it).
    parked.takeOver = (id) =>
      this.closeHolders(async (s) => s.id === id && (await this.keeper.save(s)) === 'refused');
  }

  /**
   * The engine is stopping: an idle session is closed at once, a session in a turn when its turn
   * (and audio) is over, or cut short at the deadline; each with 1001 so that its client reconnects.
   */
  private async drain(deadline: Promise<void>): Promise<void> {
    this.logger.log(`draining ${this.open.size} session(s)`);
    await Promise.all(
      [...this.open].map(async ([socket, { conversation, ended }]) => {
        await Promise.race([conversation.finish(), deadline]);
        await conversation.stop();
        await closeSocket(socket, GOING_AWAY, 'server shutting down');
        await ended; // the session is saved for the client to resume elsewhere
      }),
    );
  }

  afterInit(server: WebSocketServer): void {
    // Frames over the limit are refused by ws itself with close code 1009.
    const options = server.options as { maxPayload: number; verifyClient?: unknown };
    options.maxPayload = this.config.ws.maxMessageBytes;
    // WS_ALLOWED_ORIGINS and WS_API_KEY: refused upgrades get HTTP 403 and 401.
    options.verifyClient = upgradeCheck(this.config.ws, (message) => this.logger.debug(message));
    const every = this.config.ws.pingIntervalSecs * 1000;
    if (every > 0) this.heartbeat = startHeartbeat(server.clients as Set<LiveSocket>, every);
  }

  onModuleDestroy(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.parked.closeAll();
  }

  /**
   * A session for a client within the process (a phone call's bridge), as a connection to `/ws`
   * would open one, `query` its query (`?resume=…`); the client's end of the connection. The
   * client has passed its own checks (the call's token): no upgrade is checked here.
   */
  connectLocal(query: string): LocalSocket {
    const { client, server } = LocalSocket.pair();
    const request = { url: `/ws${query}`, headers: {} } as IncomingMessage;
    this.handleConnection(server as unknown as LiveSocket, request);
    return client;
  }

  handleConnection(socket: LiveSocket, request?: IncomingMessage): void {
    if (this.lifecycle.draining) return socket.close(GOING_AWAY, 'server shutting down');
    const { maxSessions } = this.config.ws;
    if (maxSessions > 0 && this.open.size >= maxSessions) {
      this.logger.warn(`session refused: WS_MAX_SESSIONS (${maxSessions}) reached`);
      return socket.close(TRY_AGAIN_LATER, 'too many sessions, try again later');
    }
    const { language, vad, idle } = this.speech.config;
    const { timeZone } = this.sessionSettings;
    const session = new Session(language, vad.silenceMs, idle.secs, timeZone, vad.unfinishedWaitMs);
    session.connectedFrom = parseTraceparent(request?.headers.traceparent);
    session.latency = new TurnLatency();
    const send = socketSender(socket, {
      maxBufferedBytes: this.config.ws.maxBufferedBytes,
      error: (code) => this.metrics.error(code),
      tooSlow: (buffered) =>
        this.logger.warn(
          `client too slow: ${buffered} bytes waiting to be sent, over WS_MAX_BUFFERED_BYTES; connection dropped (session_id=${session.id})`,
        ),
    });
    const limits: SettingsLimits = {
      instructionsMaxChars: this.sessionSettings.instructionsMaxChars,
      maxSecs: this.sessionSettings.limit.secs,
      toolNames: () => this.turns.toolNames(),
      agents: () => this.turns.agents(),
      // The Twilio bridge's connection sets the assistant its line names (`?agent=`).
      clientAgents: socket instanceof LocalSocket ? null : this.sessionSettings.clientAgents,
      models: this.turns.models,
      toolsOff: this.toolsOff,
      toolMocks: this.sessionSettings.toolMocks,
    };
    const conversation = new Conversation(session, {
      turns: this.turns,
      speech: this.speech,
      send,
      connected: () => socket.readyState === socket.OPEN,
      // A save refused: the session was resumed on another connection, which owns it now.
      save: async () => {
        if ((await this.keeper.checkpoint(session)) === 'refused')
          void closeSocket(socket, TAKEN_OVER, 'session resumed on another connection');
      },
      ...limits,
      maxTurnsPerMinute: this.config.ws.maxTurnsPerMinute,
      timeLimit: this.sessionSettings.limit,
      confirmPhrases: this.confirmPhrases,
      confirmKeys: this.tools.confirmKeys,
      aside: (kind) => this.metrics.conversation.aside(kind),
      unfinished: (outcome) => this.metrics.conversation.unfinished(outcome),
      pace: () => this.pacer.next(),
      hangUp: (code, reason, forget) => {
        if (forget) void this.keeper.forget(session);
        void closeSocket(socket, code, reason);
      },
      park: (calls) => {
        const ms = this.sessionSettings.resumeSecs * 1000;
        const resumable = this.keeper.resumable(session) && ms > 0;
        if (resumable) this.parked.park(session.id, calls, ms);
        return resumable;
      },
    });
    this.listen(socket, conversation);
    const token = this.keeper.enabled ? resumeTokenOf(request) : undefined;
    // Messages that arrive meanwhile wait in the conversation's queue.
    void conversation.enqueue(async () => {
      const resumed = token !== undefined && (await this.resume(session, token, limits));
      // A placed call's session, made before it rang, is opened by its stream, not resumed.
      const placed = session.placed;
      session.placed = false;
      // A placed call's time counts from its answer, not from when it was placed.
      if (placed) session.startedAt = Date.now();
      const opened = resumed ? (placed ? 'opened for a placed call' : 'resumed') : 'opened';
      this.logger.log(`session ${opened} (session_id=${session.id})`);
      this.metrics.sessions.started(resumed && !placed);
      send({
        type: 'session',
        session_id: session.id,
        settings: session.settings,
        resumed,
        ...(this.keeper.enabled && { resume_token: session.resumeToken }),
        // A resumed session's assistant (a handoff's, a placed call's), null for the engine's own.
        agent: session.agent?.name ?? null,
      });
      if (resumed) void this.parked.resume(session.id, session.background!);
      conversation.opened();
    });
  }

  /**
   * Hands the socket's frames to the conversation and tracks the connection until it has ended:
   * on close its turn is cancelled, then the session saved for resuming.
   */
  private listen(socket: LiveSocket, conversation: Conversation): void {
    const { session } = conversation;
    socket.isAlive = true;
    // A client's protocol error (e.g. a frame over WS_MAX_MESSAGE_BYTES) is the client's fault:
    // a warning with its session, not an error-level log line per misbehaving client.
    socket.removeAllListeners('error');
    socket.on('error', (error) =>
      this.logger.warn(`client error (session_id=${session.id}): ${error.message}`),
    );
    socket.on('pong', () => (socket.isAlive = true));
    const limit = new ReadLimit(socket, () => this.metrics.sessions.readsPaused());
    socket.on('message', (data: RawData, isBinary: boolean) => {
      socket.isAlive = true;
      limit.track(conversation.receive(bytesOf(data), isBinary));
    });
    let closed!: () => void;
    const ended = new Promise<void>((resolve) => (closed = resolve));
    this.open.set(socket, { conversation, ended });
    this.lifecycle.sessions = this.open.size;
    this.directory.add({
      session,
      openedAt: Date.now(),
      close: async () => {
        const forgotten = this.keeper.forget(session);
        this.logger.log(`session closed by an administrator (session_id=${session.id})`);
        await closeSocket(socket, CLOSED_BY_ADMIN, 'closed by an administrator');
        await forgotten;
      },
      release: () => this.closeHolders((s) => s === session),
      answeredBy: (kind) => conversation.answeredBy(kind),
      note: (text, respond) => conversation.note(text, respond),
      assign: (agent) => conversation.assign(agent),
    });
    socket.on('close', (code: number) => {
      const reason = endReason(socket, code);
      this.metrics.sessions.ended(reason);
      this.open.delete(socket);
      this.directory.remove(session);
      this.lifecycle.sessions = this.open.size;
      // A resume waits for this save (in any process: see OpenSessions.release).
      this.directory.closing(session.resumeToken, ended);
      void conversation
        .close()
        .then(() => {
          this.directory.ended(
            session,
            { closeCode: code, reason },
            this.keeper.resumable(session),
          );
          return this.keeper.save(session);
        })
        .finally(closed);
    });
  }

  /**
   * Resumes the stored session of `token` into `session`. A connection of any process still
   * holding it (the client reconnected before its old connection was seen dead) is closed
   * first, and its last turn saved, so that nothing of it is lost.
   */
  private async resume(session: Session, token: string, limits: SettingsLimits): Promise<boolean> {
    await this.sessions.release(token);
    return this.keeper.resume(session, token, limits);
  }

  /** Closes the connections whose sessions `match` with 4001 (taken over); settles once they have ended. */
  private async closeHolders(
    match: (session: Session) => boolean | Promise<boolean>,
  ): Promise<void> {
    for (const [socket, { conversation, ended }] of [...this.open]) {
      if (!(await match(conversation.session))) continue;
      await closeSocket(socket, TAKEN_OVER, 'session resumed on another connection');
      await ended;
    }
  }
}
