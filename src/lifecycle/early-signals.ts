/**
 * SIGTERM / SIGINT before the engine has its own stop (stopOnSignals, or ENGINE_PROCESSES'
 * primary's): the process exits at once, code 0, nothing having been served. Node's default
 * would end it too, but not as a container's PID 1 (`node dist/main.js` without an init): the
 * kernel drops a signal PID 1 has no handler for, and the stop would wait for the orchestrator's
 * kill (30 s or more). Imported first by main.ts, so that the window left is Node's own start.
 */
let say: (message: string) => void = (message) => process.stderr.write(`${message}\n`);

const early = (signal: NodeJS.Signals) => {
  say(`${signal} during start-up: exiting at once`);
  process.exit(0);
};

// From this module's evaluation (the engine's first import) until `ownStop`.
process.on('SIGTERM', early);
process.on('SIGINT', early);

/** The line said when it does, in the engine's log format once that is known. */
export function sayEarlyStopWith(log: (message: string) => void): void {
  say = log;
}

/**
 * The engine's own stop takes the signals from now on: called once its listeners are on (Node
 * closes a signal's watcher with its last listener, and a signal arrived but not yet handled
 * would be lost with it).
 */
export function ownStop(): void {
  process.off('SIGTERM', early);
  process.off('SIGINT', early);
}
