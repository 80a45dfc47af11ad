import { Injectable, Logger, Module } from '@nestjs/common';
import { sessionsConfig, type SessionsConfig } from '../config/app.config.js';
import { MemorySessionStore, SessionStore } from './session-store.js';
import { ClusterSessionStore } from './cluster-session-store.js';
import { ClusterLink } from '../cluster/cluster-link.js';
import { Lifecycle } from '../lifecycle/lifecycle.service.js';

/** Closes the store when the engine stops (once closed: after the gateway's last saves). */
@Injectable()
class SessionStoreCloser {
  constructor(store: SessionStore, lifecycle: Lifecycle) {
    lifecycle.lastly("the session store's last answers", () => store.close());
  }
}

/** The session store: in this process, or Redis with `SESSION_STORE_URL`. */
@Module({
  providers: [
    {
      provide: SessionStore,
      inject: [sessionsConfig.KEY, ClusterLink],
      useFactory: async (config: SessionsConfig, cluster: ClusterLink): Promise<SessionStore> => {
        // Without Redis: in the process, or with ENGINE_PROCESSES in their primary.
        if (!config.storeUrl)
          return cluster.inCluster ? new ClusterSessionStore(cluster) : new MemorySessionStore();
        // Loaded only for Redis: an engine keeping sessions in memory does not carry the client.
        const { RedisSessionStore } = await import('./redis-session-store.js');
        const logger = new Logger('SessionStore');
        let lastLog = 0;
        // Read at each connection: a password rotated in its file (SECRET_FILES_WATCH_SECS).
        const store = new RedisSessionStore(
          () => config.storeUrl,
          (error) => {
            // One line per 10 s while Redis is away, not one per reconnect attempt.
            if (Date.now() - lastLog < 10_000) return;
            lastLog = Date.now();
            logger.warn(`Redis (SESSION_STORE_URL) unavailable: ${error.message || error.name}`);
          },
        );
        await store.connect();
        return store;
      },
    },
    SessionStoreCloser,
  ],
  exports: [SessionStore],
})
export class SessionsModule {}
