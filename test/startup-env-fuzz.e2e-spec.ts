import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { SECRET_SETTINGS } from '../src/config/secret-files.js';
import { FAULT_WORDS } from './support/chaos-checks.js';
import { Engine } from './support/engine.js';

/**
 * Every variable the engine reads, as .env.example lists them (test/readme.spec.ts keeps it
 * whole), the secrets given as files, and a tool's secret. PORT and ENGINE_PROCESSES are the
 * built engine's (test/startup.e2e-spec.ts): the engine here listens on a port of its own.
 */
const NAMES = [
  ...new Set(
    [...readFileSync('.env.example', 'utf8').matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map(
      (m) => m[1]!,
    ),
  ),
  ...SECRET_SETTINGS.map((name) => `${name}_FILE`),
  'TOOL_SECRET_ORDERS',
].filter((name) => name !== 'PORT' && name !== 'ENGINE_PROCESSES');

/** Values an operator may write: right for some variables, wrong for others. */
const value = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1',
    '65536',
    '1.5',
    'true',
    'false',
    'auto',
    'none',
    'http://127.0.0.1:9/v1',
    'not a url',
    '{}',
    '[]',
    '{"a":1}',
    'null',
    'a,b',
    'en',
    'Europe/Rome',
    'half \ud800',
    '/nonexistent/file',
    '.',
    'package.json',
  ),
  fc.string({ maxLength: 12 }),
);
const env = fc.dictionary(fc.constantFrom(...NAMES), value, { minKeys: 1, maxKeys: 3 });

/**
 * Settings of any values, a few at a time: the engine starts with them, or refuses to naming the
 * variable that is wrong, in words (never a fault of reading it), and leaves nothing running.
 */
describe('start-up over any settings', () => {
  it('starts, or refuses to naming a variable', async () => {
    const outcomes = new Set<string>();
    await fc.assert(
      fc.asyncProperty(env, async (raw) => {
        let engine: Engine | undefined;
        try {
          engine = await Engine.start({ LLM_BASE_URL: 'http://127.0.0.1:9/v1', ...raw });
          outcomes.add('started');
        } catch (error) {
          outcomes.add('refused');
          const message = (error as Error).message;
          expect(NAMES.some((name) => message.includes(name))).toBe(true);
          expect(message).not.toMatch(FAULT_WORDS);
        } finally {
          await engine?.stop();
        }
      }),
      { numRuns: Number(process.env.CHAOS_RUNS ?? 100) },
    );
    expect([...outcomes].sort()).toEqual(['refused', 'started']);
  }, 240_000);
});
