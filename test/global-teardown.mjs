// Jest global teardown: the run's temporary directory (global-setup.mjs) goes with the run.
import { rmSync } from 'node:fs';

export default function teardown() {
  const dir = process.env.ENGINE_TEST_RUN_DIR;
  if (dir) rmSync(dir, { recursive: true, force: true });
}
