import { readFileSync } from 'node:fs';

/** Every environment variable the engine reads: the names env.ts passes to its readers. */
export const ENGINE_VARIABLES = [
  ...readFileSync('src/config/env.ts', 'utf8').matchAll(/'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|PORT)'/g),
].map((m) => m[1]!);
