import { Logger, type INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import { createHttpTerminator } from 'http-terminator';
import { Lifecycle } from './lifecycle.service.js';
import { STOP_PAST_GRACE_SECS } from './stop-bounds.js';

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

/**
 * SIGTERM / SIGINT stop the engine gracefully: sessions drain for up to SHUTDOWN_GRACE_SECS
 * (turns in progress finish), then the HTTP connections and the app close. A second signal ends
 * the grace period; one after the drain ends the process at once. The process has exited
 * STOP_PAST_GRACE_SECS after the grace period at most.
 */
export function stopOnSignals(app: INestApplication, graceSecs: number): void {
  const logger = new Logger('Engine');
  // Tracks the connections from now on, to close those left once the sessions have drained.
  const connections = createHttpTerminator({
    server: app.getHttpServer() as Server,
    gracefulTerminationTimeout: REQUESTS_FINISH_MS,
  });
  let stopping = false;
  let stoppedAt = 0;
  const stop = (signal: NodeJS.Signals) => {
    const lifecycle = app.get(Lifecycle);
    if (stopping && performance.now() - stoppedAt < SAME_SIGNAL_MS) return;
    if (stopping && !lifecycle.drained) return lifecycle.hurry();
    if (stopping) {
      logger.warn(`${signal} again: exiting now, without waiting for ${lifecycle.waitingFor()}`);
      process.exit(1);
    }
    stopping = true;
    stoppedAt = performance.now();
    logger.log(`${signal}: draining sessions (up to ${graceSecs}s), then stopping`);
    const boundSecs = graceSecs + STOP_PAST_GRACE_SECS;
    setTimeout(() => {
      logger.error(
        `the stop took longer than SHUTDOWN_GRACE_SECS + ${STOP_PAST_GRACE_SECS}s (${boundSecs}s): exiting while it still waits for ${lifecycle.waitingFor()}`,
      );
      process.exit(1);
    }, boundSecs * 1000).unref();
    void lifecycle
      .drain(graceSecs * 1000)
      .then(() => connections.terminate())
      .then(() => app.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error(`stop failed: ${(error as Error).stack}`);
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
