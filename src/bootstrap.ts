import 'reflect-metadata';
import { Logger, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppModule } from './app.module.js';
import { parseEnv } from './config/env.js';
import { JsonLogger, levelsUpTo } from './logging.js';
import { setupSwagger } from './swagger.js';
import { AgentWsAdapter } from './orchestrator/agent-ws.adapter.js';

/** Builds the whole engine (HTTP + WebSocket on one port); `listen` is left to the caller. */
export async function createApp(): Promise<INestApplication> {
  const env = parseEnv(process.env);
  const logger = env.logFormat === 'json' ? new JsonLogger(env.logLevel) : levelsUpTo(env.logLevel);
  const app = await NestFactory.create(AppModule, {
    bodyParser: false,
    logger,
    abortOnError: false,
  });
  app.useWebSocketAdapter(new AgentWsAdapter(app));
  app.enableShutdownHooks();
  setupSwagger(app);
  return app;
}

export async function start(): Promise<INestApplication> {
  const app = await createApp();
  await app.listen(parseEnv(process.env).port);
  const server = app.getHttpServer() as Server;
  const { port } = server.address() as AddressInfo;
  new Logger('Engine').log(`listening on http://0.0.0.0:${port} (WebSocket /ws, Swagger /docs)`);
  return app;
}
