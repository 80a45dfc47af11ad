import 'reflect-metadata';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { config as rxjsConfig } from 'rxjs';
import { AppModule } from './app.module.js';
import { ErrorEnvelope } from './common/error-envelope.filter.js';
import { wholeCharacters } from './common/whole-characters.js';
import { parseEnv } from './config/env.js';
import { egressProxyName, useEgress } from './common/egress.js';
import { originAllowed } from './common/origins.js';
import { JsonLogger, levelsUpTo } from './logging.js';
import { setupSwagger } from './swagger.js';
import { AgentWsAdapter } from './orchestrator/agent-ws.adapter.js';
import { stopOnSignals } from './lifecycle/stop-on-signals.js';

/**
 * An error thrown while one event is handled (a turn's event by the gateway, the speech, the
 * metrics) is logged, and the process with every other session goes on: RxJS's default throws it
 * again outside any handler, which would end the process.
 */
function logHandlerErrors(): void {
  rxjsConfig.onUnhandledError = (error: unknown) =>
    new Logger('Engine').error(
      `an event handler failed: ${(error as Error | undefined)?.stack ?? String(error)}`,
    );
}

/**
 * A promise rejected with no handler (a fault of the engine's own, in work no session's turn
 * awaits) is logged with its stack, and the process with every session goes on: Node's default
 * ends the process, and with it every call it holds. The engine's process only: not a test's.
 */
function logStrayRejections(): void {
  process.on('unhandledRejection', (reason: unknown) =>
    new Logger('Engine').error(
      `a promise was rejected with no handler: ${(reason as Error | undefined)?.stack ?? String(reason)}`,
    ),
  );
}

/** A port the engine cannot listen on, said with the setting that names it. */
function portRefused(error: NodeJS.ErrnoException, port: number): Error {
  if (error.code === 'EADDRINUSE')
    return new Error(`PORT=${port}: another process listens on this port (${error.message})`);
  if (error.code === 'EACCES')
    return new Error(
      `PORT=${port}: this process may not listen on this port (${error.message}); below 1024 a port needs privileges`,
    );
  return error;
}

/** Builds the whole engine (HTTP + WebSocket on one port); `listen` is left to the caller. */
export async function createApp(): Promise<INestApplication> {
  logHandlerErrors();
  const env = parseEnv(process.env);
  useEgress(env.egress);
  const logger = env.logFormat === 'json' ? new JsonLogger(env.logLevel) : levelsUpTo(env.logLevel);
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    bodyParser: false,
    logger,
    abortOnError: false,
  });
  // The only ETags are the tool set's versions (/api/tools), never a hash of an answer's body;
  // and no header tells a scanner what serves the API.
  app.set('etag', false);
  app.disable('x-powered-by');
  // Every JSON answer with whole characters (a session's history holding a user's text cut
  // mid-emoji): U+FFFD, never the escape `\ud83d` that a reader in UTF-8 refuses.
  app.set('json replacer', wholeCharacters);
  app.useWebSocketAdapter(new AgentWsAdapter(app));
  app.useGlobalFilters(new ErrorEnvelope(app.getHttpAdapter()));
  // CORS_ORIGINS: pages of those origins may call the HTTP API (an admin UI elsewhere).
  if (env.corsOrigins.length > 0)
    app.enableCors({
      origin: (origin: string | undefined, allow: (error: null, ok: boolean) => void) =>
        allow(null, origin !== undefined && originAllowed(env.corsOrigins, origin)),
      methods: ['GET', 'POST', 'PUT', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'traceparent'],
      exposedHeaders: ['ETag'],
      maxAge: 600,
    });
  setupSwagger(app);
  return app;
}

export async function start(): Promise<INestApplication> {
  logStrayRejections();
  const app = await createApp();
  const env = parseEnv(process.env);
  const startUp = stopOnSignals(app, env.shutdownGraceSecs);
  // Modules first (code tools' interpreters, MCP servers, Redis), then the port: a signal
  // meanwhile closes the engine before it listens.
  await app.init();
  if (!startUp.started()) return app;
  await app.listen(env.port).catch((error: NodeJS.ErrnoException) => {
    throw portRefused(error, env.port);
  });
  const server = app.getHttpServer() as Server;
  const { port } = server.address() as AddressInfo;
  const logger = new Logger('Engine');
  logger.log(`listening on http://0.0.0.0:${port} (WebSocket /ws, Swagger /docs)`);
  if (env.egress.proxy)
    logger.log(
      `outbound requests go through the egress proxy ${egressProxyName()}, but for ${env.egress.noProxy.length} EGRESS_NO_PROXY entries`,
    );
  // A cluster may set these in every pod: the engine reads EGRESS_PROXY alone, and says so once.
  const unread = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].find(
    (name) => process.env[name],
  );
  if (unread && !env.egress.proxy)
    logger.log(
      `${unread} is set but not used: the engine's requests go through a proxy only with EGRESS_PROXY (which may take its value)`,
    );
  if (!env.adminApiKey)
    logger.warn(
      'ADMIN_API_KEY is not set: anyone who reaches this port can change the tools the model calls (/api/tools); set it outside a trusted network',
    );
  return app;
}
