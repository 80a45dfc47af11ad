import { execFileSync } from 'node:child_process';
import { ENGINE_NODE } from './support/built-engine.js';

/**
 * Checks every schema it is given as the engine does, in a process of its own on the engine's
 * Node (ENGINE_NODE; jest's module contexts keep compiled code alive themselves), and prints the heap after a full GC past each
 * round of `schemas` schemas never seen before, in MB.
 */
function heapsAfterRounds(rounds: number, schemas: number): number[] {
  const script = `
    import { argumentProblem } from './dist/tools/argument-check.js';
    import { keepNoCompiledSources } from './dist/common/compilation-cache.js';
    keepNoCompiledSources(); // as the engine's start-up does
    const heaps = [];
    let k = 0;
    for (let round = 0; round < ${rounds}; round++) {
      for (let n = 0; n < ${schemas}; n++, k++) {
        const parameters = {
          type: 'object',
          properties: { word: { type: 'string', maxLength: 1000 + k }, ['note_' + k]: { type: 'string' } },
          required: ['word'],
        };
        if (argumentProblem(parameters, { word: 'w' }) !== undefined) throw new Error('refused');
      }
      for (let i = 0; i < 3; i++) gc();
      heaps.push(process.memoryUsage().heapUsed / 1048576);
    }
    console.log(JSON.stringify(heaps));`;
  const out = execFileSync(ENGINE_NODE, ['--expose-gc', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return JSON.parse(out) as number[];
}

describe('argument checks, memory', () => {
  it('keep nothing of a schema once its tool is gone (a session declares client tools of its own)', () => {
    const heaps = heapsAfterRounds(3, 600);
    // Kept, ~6 KB a schema (its compiled source and function) would be 7 MB over the last two rounds.
    expect(heaps[2]! - heaps[0]!).toBeLessThan(1.5);
  }, 60_000);
});
