import { Logger, type INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import { once } from 'node:events';
import { createHttpTerminator } from 'http-terminator';
import { Lifecycle } from './lifecycle.service.js';
import { STOP_PAST_GRACE_SECS } from './stop-bounds.js';
import { ownStop } from './early-signals.js';

/**
 * How long HTTP requests still in flight once the sessions have drained may take (their answers
 * say `Connection: close`); connections with none (kept alive, or opened and never used) are
 * closed at once. Without this, one idle connection (a load balancer's) held the stop for ever.
 */
const REQUESTS_FINISH_MS = 1000;

/**
 * A signal this soon after the first is the same one told twice, not a second: Ctrl-C in a
 * terminal reaches every process of the group, and ENGINE_PROCESSES' primary passes it on too.
 */
const SAME_SIGNAL_MS = 1000;

/** Told by the engine's start-up once its modules are ready, before it listens. */
export interface StartUp {
  /**
   * Whether to listen: false when a signal came during start-up, and the engine is then closed
   * (the process exits 0) without having listened.
   */
  started(): boolean;
}

/**
 * SIGTERM / SIGINT stop the engine gracefully: sessions drain for up to SHUTDOWN_GRACE_SECS
 * (turns in progress finish), then the HTTP connections and the app close. A second signal ends
 * the grace period; one after the drain ends the process at once. A signal during start-up (the
 * code tools' interpreters loading, MCP servers connecting) stops it as soon as its modules are
 * ready, without listening. The process has exited STOP_PAST_GRACE_SECS after the grace period at
 * most.
 */
export function stopOnSignals(app: INestApplication, graceSecs: number): StartUp {
  const logger = new Logger('Engine');
  const server = app.getHttpServer() as Server;
  // Tracks the connections from now on, to close those left once the sessions have drained.
  const connections = createHttpTerminator({
    server,
    gracefulTerminationTimeout: REQUESTS_FINISH_MS,
  });
  let startingUp = true;
  let stopping = false;
  let stoppedAt = 0;
  const waitingFor = () => (startingUp ? 'the start-up' : app.get(Lifecycle).waitingFor());
  const exitWhenClosed = (closing: Promise<unknown>) =>
    closing.then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(`stop failed: ${(error as Error).stack}`);
        process.exit(1);
      },
    );
  const stop = (signal: NodeJS.Signals) => {
    if (stopping && performance.now() - stoppedAt < SAME_SIGNAL_MS) return;
    if (stopping && !startingUp && !app.get(Lifecycle).drained) return app.get(Lifecycle).hurry();
    if (stopping) {
      logger.warn(`${signal} again: exiting now, without waiting for ${waitingFor()}`);
      process.exit(1);
    }
    stopping = true;
    stoppedAt = performance.now();
    const boundSecs = graceSecs + STOP_PAST_GRACE_SECS;
    setTimeout(() => {
      logger.error(
        `the stop took longer than SHUTDOWN_GRACE_SECS + ${STOP_PAST_GRACE_SECS}s (${boundSecs}s): exiting while it still waits for ${waitingFor()}`,
      );
      process.exit(1);
    }, boundSecs * 1000).unref();
    if (startingUp) return logger.log(`${signal} during start-up: stopping once it is done`);
    logger.log(`${signal}: draining sessions (up to ${graceSecs}s), then stopping`);
    void exitWhenClosed(
      app
        .get(Lifecycle)
        .drain(graceSecs * 1000)
        // Listening may still be under way (a signal just after start-up).
        .then(() => (server.listening ? undefined : once(server, 'listening')))
        .then(() => connections.terminate())
        .then(() => app.close()),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  ownStop(); // after: a signal not yet handled is this stop's, not lost with the last listener
  return {
    started() {
      startingUp = false;
      if (!stopping) return true;
      logger.log('started: stopping without listening, as asked');
      void exitWhenClosed(app.close());
      return false;
    },
  };
}
