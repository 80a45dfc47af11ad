/**
 * The spec files run in plain Node (jest-light-runner): each of three worker threads loads the
 * engine's modules once and runs its files one after another, where jest's own runner loaded them
 * anew for each file in a context of its own (~2 s of CPU a file that starts the engine; the
 * suite 504 s → 330–363 s on two cores, its CPU 908 s → ~600 s). TypeScript is compiled as it
 * is loaded, by SWC (test/typescript.mjs), with the decorator metadata Nest's injection reads.
 * What the runner leaves out of jest's, test/jest-setup.mjs gives: time limits, the `jest`
 * object's timer calls with their options, and a process as the run began for each file.
 */
module.exports = {
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '.*\\.(spec|e2e-spec)\\.ts$',
  runner: 'jest-light-runner',
  setupFiles: ['<rootDir>/test/typescript.mjs'],
  setupFilesAfterEnv: ['<rootDir>/test/jest-setup.mjs'],
  // Three workers on two cores: the specs spend a good part of their time waiting (timers, child
  // processes, sockets), and a third worker fills it.
  maxWorkers: 3,
  globalSetup: '<rootDir>/test/global-setup.mjs',
  globalTeardown: '<rootDir>/test/global-teardown.mjs',
};
