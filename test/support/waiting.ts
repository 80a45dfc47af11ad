import { setTimeout as sleep } from 'node:timers/promises';
import type { RecordingServer } from './recording-server.js';

/** Waits until `test` holds, polling; fails with `what` (said as it is then) after `ms`. */
export async function until(
  test: () => boolean,
  what: string | (() => string),
  ms = 5000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await sleep(5);
  }
}

/** `until` for a test that must ask something asynchronously (an HTTP endpoint), every 50 ms. */
export async function untilAsync(
  test: () => Promise<boolean>,
  what: string,
  ms = 5000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** The texts a fake OpenAI speech server was asked to synthesise, in order. */
export const synthesised = (server: RecordingServer): string[] =>
  server.requests
    .filter((r) => r.path === '/audio/speech')
    .map((r) => (JSON.parse(r.body) as { input: string }).input);

/** Whether a process runs (signal 0 checks without sending one). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
