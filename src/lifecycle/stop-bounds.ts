/**
 * The stop's bound past SHUTDOWN_GRACE_SECS: the drain's end (close handshakes, 1 s; the last
 * saves, 2 s), requests in flight (1 s), then the last steps together (the session reports' 5 s
 * the longest). What still waits then is given up: the process exits, as an orchestrator would
 * kill it, but with a line that says what was left. With the defaults (20 s) the stop ends
 * within Kubernetes' default grace period of 30 s.
 */
export const STOP_PAST_GRACE_SECS = 9;

/**
 * ENGINE_PROCESSES' primary's bound past SHUTDOWN_GRACE_SECS: each process's own, and a moment
 * for it to exit. A process still there then cannot run its own bound (its event loop blocked, the
 * process frozen): the primary kills it, so that the engine's stop still ends.
 */
export const PRIMARY_PAST_GRACE_SECS = STOP_PAST_GRACE_SECS + 2;
