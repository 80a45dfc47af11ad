/**
 * The spec files run in plain Node (jest-light-runner): each worker thread loads the engine's
 * modules once, not once a file (README, "Development", says what that saves). TypeScript is
 * compiled as it is loaded, by SWC (test/typescript.mjs); what the runner leaves out of jest's,
 * test/jest-setup.mjs gives.
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
