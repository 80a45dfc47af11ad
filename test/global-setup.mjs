// Jest global setup: the e2e specs that start `node dist/main.js` need a current build. Building
// here, once, keeps parallel spec files from running the compiler at the same time.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Newest modification time of any file under `dir`. */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

export default function globalSetup() {
  if (!existsSync('dist/main.js') || statSync('dist/main.js').mtimeMs < newest('src')) {
    execSync('npm run build', { stdio: 'inherit' });
  }
}
