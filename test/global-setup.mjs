// Jest global setup: the e2e specs that start `node dist/main.js` need a current build. Building
// here, once, keeps parallel spec files from running the compiler at the same time.
//
// Every temporary directory of the run — the specs' tools files, certificates and documents, and
// whatever the engines they start write — is made under one directory (TMPDIR, which the test
// workers and their child processes inherit), removed by global-teardown.mjs: runs do not pile
// them up in the system's.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIfNeeded } from '../scripts/build-if-needed.mjs';

export default function setup() {
  buildIfNeeded();
  const dir = mkdtempSync(join(tmpdir(), 'engine-test-run-'));
  process.env.ENGINE_TEST_RUN_DIR = dir;
  process.env.TMPDIR = dir;
}
