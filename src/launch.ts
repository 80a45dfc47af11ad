/** The engine's start: its settings, then one engine process or ENGINE_PROCESSES' primary. */
import cluster from 'node:cluster';
import { existsSync, readFileSync } from 'node:fs';
import { parseEnv as parseDotEnv } from 'node:util';
import { keepNoCompiledSources } from './common/compilation-cache.js';
import { parseEnv } from './config/env.js';
import { secretFiles } from './config/secret-files.js';
import { sayEarlyStopWith } from './lifecycle/early-signals.js';

keepNoCompiledSources();

const fail = (error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`audio-agent-engine failed to start: ${message}`);
  process.exit(1);
};

/** The environment as the engine will see it: `.env` (when present) under the real environment. */
function environment(): Record<string, string | undefined> {
  if (!existsSync('.env')) return process.env;
  return { ...parseDotEnv(readFileSync('.env', 'utf8')), ...process.env };
}

/**
 * One turn of the event loop: a signal that came while the engine loaded is taken now, before
 * anything starts (Node 22 loads the modules without a turn, and would take it only once the
 * engine listens).
 */
const signalsTaken = () => new Promise((resolve) => setImmediate(resolve));

try {
  // Secrets given as files (NAME_FILE), read once; a cluster's workers inherit their values.
  if (cluster.isPrimary) Object.assign(process.env, secretFiles(environment()));
  const env = parseEnv(environment());
  const { processLog } = await import('./logging.js');
  sayEarlyStopWith(processLog(env, 'Engine').log);
  if (cluster.isPrimary && env.processes > 1) {
    const { runPrimary } = await import('./cluster/primary.js');
    await signalsTaken();
    runPrimary(env.processes, processLog(env, 'Cluster'), env.shutdownGraceSecs);
  } else {
    const { start } = await import('./bootstrap.js');
    await signalsTaken();
    await start();
  }
} catch (error) {
  fail(error);
}
