import { start } from './bootstrap.js';

start().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`audio-agent-engine failed to start: ${message}`);
  process.exit(1);
});
