// The signals' handlers first, alone: a SIGTERM from here on ends the start-up, as a container's
// PID 1 too (ESM parses a module's whole import graph before it runs any of it: the engine's is
// loaded after them).
import './lifecycle/early-signals.js';

await import('./launch.js');
