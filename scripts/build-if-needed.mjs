// `npm start` on a fresh clone: compile once when dist/ is missing or older than src/.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const out = 'dist/main.js';
if (!existsSync(out) || statSync(out).mtimeMs < newest('src')) {
  execSync('npm run build', { stdio: 'inherit' });
}
