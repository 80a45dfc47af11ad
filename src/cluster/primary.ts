import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import type { ProcessLog } from '../logging.js';
import { ownStop } from '../lifecycle/early-signals.js';
import { isClusterMessage, type ClusterMessage, type SessionsOp } from './messages.js';
import { SlotTable } from './slot-table.js';
import { RateTable } from '../tools/rate-table.js';
import { answerShelf, primaryShelves } from './memory-shelf.js';
import { MemorySessionStore } from '../sessions/session-store.js';
import { answerStore } from '../sessions/cluster-session-store.js';
import { overrideVersion } from '../tools/tool-set-version.js';
import { PRIMARY_PAST_GRACE_SECS } from '../lifecycle/stop-bounds.js';

/** How long the primary waits for one process to install a tools override. */
const APPLY_TIMEOUT_MS = 60_000;
/** How often the shelves let go of the entries whose time is up. */
const SHELF_SWEEP_MS = 30_000;
/** How long it waits for one process's answer about its sessions. */
const SESSIONS_TIMEOUT_MS = 5000;

/**
 * The primary of `ENGINE_PROCESSES` > 1: forks the engine processes, which share the port
 * (node:cluster hands out connections round-robin), and keeps their tool sets equal. A
 * `POST /api/tools` accepted by one process is installed by all the others before it answers;
 * a process started later (a replacement) asks for the override in force before it listens.
 * A process that dies during start-up stops the engine (its error is already printed); one that
 * dies later is replaced. SIGTERM / SIGINT are passed on, and the primary exits after them; a
 * process still there SHUTDOWN_GRACE_SECS + PRIMARY_PAST_GRACE_SECS after the first signal
 * (frozen, or its event loop blocked: its own bound could not end it) is killed.
 */
export function runPrimary(count: number, log: ProcessLog, graceSecs: number): void {
  let override: unknown = null;
  let stopping = false;
  let nextId = 1;
  /** Asks every engine process for its metrics and sums them (prom-client's cluster support). */
  const aggregator = new AggregatorRegistry();
  const ready = new Set<number>();
  /** Processes that have asked for the override in force: from then on they take updates. */
  const synced = new Set<number>();

  const send = (worker: Worker, message: ClusterMessage) => {
    if (worker.isConnected()) worker.send(message);
  };
  const workers = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
  /** Tools' `rate_limit` across the processes. */
  const rates = new RateTable();
  /**
   * What the processes share without Redis: OAuth 2.0 tokens (encrypted, one request per client),
   * `cache_secs` results, background calls' results waiting for their resumed session.
   */
  const shelves = primaryShelves();
  // Entries whose time is up are let go even if nobody asks for them again.
  setInterval(() => {
    for (const shelf of Object.values(shelves)) shelf.sweep();
  }, SHELF_SWEEP_MS).unref();
  /** The sessions kept for resuming, for every process (without Redis). */
  const sessions = new MemorySessionStore();
  /** Tools' `max_concurrency` across the processes. */
  const slots = new SlotTable((owner, id) => {
    const worker = cluster.workers?.[owner];
    if (worker) send(worker, { kind: 'engine.slots.granted', id });
  });

  /** Asks one process to install `definitions`; resolves when it has, or gave up, or exited. */
  const applyOn = (worker: Worker, definitions: unknown) =>
    new Promise<void>((resolve) => {
      const id = nextId++;
      const done = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', done);
        resolve();
      };
      const onMessage = (message: unknown) => {
        if (!isClusterMessage(message) || message.kind !== 'engine.tools.applied') return;
        if (message.id !== id) return;
        if (message.error)
          log.error(`engine process ${worker.process.pid} refused the tools: ${message.error}`);
        done();
      };
      const timer = setTimeout(() => {
        log.warn(`engine process ${worker.process.pid} did not install the tools in time`);
        done();
      }, APPLY_TIMEOUT_MS);
      worker.on('message', onMessage);
      worker.once('exit', done);
      send(worker, { kind: 'engine.tools.apply', id, definitions });
    });

  /** Asks one process for `op` on its sessions; null when it does not answer in time or exits. */
  const askSessions = (worker: Worker, op: SessionsOp, session?: string, data?: unknown) =>
    new Promise<unknown>((resolve) => {
      const id = nextId++;
      let result: unknown = null;
      const done = () => {
        clearTimeout(timer);
        worker.off('message', onAnswer);
        worker.off('exit', done);
        resolve(result);
      };
      const onAnswer = (message: unknown) => {
        if (!isClusterMessage(message) || message.kind !== 'engine.sessions.answer') return;
        if (message.id !== id) return;
        result = message.result;
        done();
      };
      const timer = setTimeout(done, SESSIONS_TIMEOUT_MS);
      worker.on('message', onAnswer);
      worker.once('exit', done);
      send(worker, {
        kind: 'engine.sessions.ask',
        id,
        op,
        ...(session !== undefined && { session }),
        ...(data !== undefined && { data }),
      });
    });

  const onMessage = (from: Worker, message: unknown) => {
    if (!isClusterMessage(message)) return;
    if (message.kind === 'engine.sessions.request') {
      const { id, op, session, data } = message;
      const asked = workers().filter((w) => ready.has(w.id) || w === from);
      void Promise.all(asked.map((w) => askSessions(w, op, session, data))).then((results) =>
        send(from, { kind: 'engine.sessions.reply', id, results }),
      );
      return;
    }
    if (message.kind === 'engine.slots.acquire') {
      slots.acquire(from.id, message.id, message.key, message.max);
      return;
    }
    if (message.kind === 'engine.slots.release') {
      slots.release(message.id);
      return;
    }
    if (message.kind === 'engine.rates.reserve') {
      const { id, key, calls, perMs, maxWaitMs } = message;
      const waitMs = rates.reserve(key, { calls, perMs }, maxWaitMs) ?? null;
      send(from, { kind: 'engine.rates.reserved', id, waitMs });
      return;
    }
    if (answerShelf(shelves, message, (reply) => send(from, reply))) return;
    if (message.kind === 'engine.broadcast') {
      for (const worker of workers()) send(worker, message);
      return;
    }
    if (message.kind === 'engine.store.request') {
      const { id, request } = message;
      void answerStore(sessions, request)
        .catch(() => ({}))
        .then((reply) => send(from, { kind: 'engine.store.reply', id, ...reply }));
      return;
    }
    if (message.kind === 'engine.circuits.news') {
      for (const worker of workers())
        if (worker !== from && ready.has(worker.id)) send(worker, message);
      return;
    }
    if (message.kind === 'engine.metrics.request') {
      const { id } = message;
      aggregator.clusterMetrics().then(
        (text) => send(from, { kind: 'engine.metrics.reply', id, text }),
        (error: Error) => send(from, { kind: 'engine.metrics.reply', id, error: error.message }),
      );
    } else if (message.kind === 'engine.tools.current') {
      synced.add(from.id);
      send(from, { kind: 'engine.tools.current', id: message.id, definitions: override });
    } else if (message.kind === 'engine.tools.publish') {
      const { basedOn } = message;
      if (
        basedOn !== undefined &&
        (override === null ? '' : overrideVersion(override)) !== basedOn
      ) {
        const definitions = override;
        send(from, { kind: 'engine.tools.published', id: message.id, conflict: true, definitions });
        return;
      }
      override = message.definitions;
      // A process still starting asks for `override` itself before it listens.
      const others = workers().filter((w) => w !== from && synced.has(w.id));
      void Promise.all(others.map((w) => applyOn(w, message.definitions))).then(() =>
        send(from, { kind: 'engine.tools.published', id: message.id }),
      );
    }
  };

  const fork = () => {
    const worker = cluster.fork();
    worker.on('message', (message: unknown) => onMessage(worker, message));
    worker.once('listening', () => ready.add(worker.id));
  };

  const stop = (signal: NodeJS.Signals) => {
    if (!stopping) setTimeout(killLeft, (graceSecs + PRIMARY_PAST_GRACE_SECS) * 1000).unref();
    stopping = true;
    for (const worker of workers()) worker.process.kill(signal);
    if (workers().length === 0) process.exit(process.exitCode ?? 0);
  };

  /** The stop's bound: the processes still running could not end their own stop. */
  const killLeft = () => {
    const left = workers();
    if (left.length === 0) return;
    const pids = left.map((w) => w.process.pid).join(', ');
    log.error(
      `engine processes still running SHUTDOWN_GRACE_SECS + ${PRIMARY_PAST_GRACE_SECS}s (${graceSecs + PRIMARY_PAST_GRACE_SECS}s) after the signal, past their own bound: killing ${pids}`,
    );
    process.exitCode = 1;
    for (const worker of left) worker.process.kill('SIGKILL');
  };

  cluster.on('exit', (worker, code, signal) => {
    slots.dropOwner(worker.id);
    const started = ready.delete(worker.id);
    synced.delete(worker.id);
    if (!stopping && !started) {
      process.exitCode = code || 1;
      log.error(`an engine process failed to start (exit ${signal ?? code}): stopping`);
      stop('SIGTERM');
      return;
    }
    if (stopping) {
      // A process whose stop was cut short (a second signal, its bound) says so by the primary's.
      if (code) process.exitCode ||= code;
      if (workers().length === 0) process.exit(process.exitCode ?? 0);
      return;
    }
    log.warn(`engine process ${worker.process.pid} exited (${signal ?? code}): starting another`);
    fork();
  });
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  ownStop(); // after: a signal not yet handled is this stop's

  log.log(`starting ${count} engine processes on one port`);
  for (let i = 0; i < count; i++) fork();
}
