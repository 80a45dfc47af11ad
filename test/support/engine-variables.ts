import { readdirSync, readFileSync } from 'node:fs';

/** Every environment variable the engine reads: the names src/config passes to its readers. */
export const ENGINE_VARIABLES = [
  ...new Set(
    readdirSync('src/config')
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))
      .flatMap((f) => [
        ...readFileSync(`src/config/${f}`, 'utf8').matchAll(
          /'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|PORT)'/g,
        ),
      ])
      .map((m) => m[1]!),
  ),
];
