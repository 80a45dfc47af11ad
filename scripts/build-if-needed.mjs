// Compiles once when dist/ is missing or older than src/: `npm start` on a fresh clone (run as a
// script) and the test suite's global setup (imported) both use it.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

export function buildIfNeeded() {
  const out = 'dist/main.js';
  if (!existsSync(out) || statSync(out).mtimeMs < newest('src')) {
    execSync('npm run build', { stdio: 'inherit' });
  } else {
    // The build's last step, for a dist/ made before it (it does nothing once its file is there).
    execSync('node scripts/python-stdlib.mjs', { stdio: 'inherit' });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildIfNeeded();
