import { Logger, type FactoryProvider } from '@nestjs/common';
import { ClusterLink } from '../cluster/cluster-link.js';
import { sharedBroadcast, sharedShelf } from '../cluster/shelf.js';
import { sessionsConfig, type SessionsConfig } from '../config/app.config.js';
import { SessionStore } from '../sessions/session-store.js';
import { ParkedCalls } from './background-calls.js';
import { Lifecycle } from '../lifecycle/lifecycle.service.js';
import { SessionDirectory } from './session-directory.js';
import { SharedBackground } from './shared-background.js';

/**
 * Background calls parked for their sessions' resumption; with Redis across every process of
 * every replica, else across the processes of ENGINE_PROCESSES (through their primary): a session
 * resumed elsewhere gets their results there.
 */
export const parkedCalls: FactoryProvider<ParkedCalls> = {
  provide: ParkedCalls,
  inject: [SessionStore, sessionsConfig.KEY, SessionDirectory, ClusterLink, Lifecycle],
  useFactory: (
    store: SessionStore,
    config: SessionsConfig,
    directory: SessionDirectory,
    cluster: ClusterLink,
    lifecycle: Lifecycle,
  ) => {
    const logger = new Logger('BackgroundCalls');
    const shelf = sharedShelf(store, cluster, 'background');
    const broadcast = sharedBroadcast(store, cluster);
    const shared =
      broadcast && shelf ? new SharedBackground(broadcast, shelf, config.resumeSecs) : undefined;
    const parked = new ParkedCalls(
      shared,
      (id) => directory.get(id)?.session.background,
      (message) => logger.warn(message),
    );
    parked
      .listen()
      .catch((error: unknown) =>
        logger.warn(
          `background results reach sessions resumed in this process only: ${(error as Error).message}`,
        ),
      );
    // A stopping engine lets parked calls end within the grace period, their results shared.
    lifecycle.onDrain((deadline) => parked.drain(deadline));
    return parked;
  },
};
