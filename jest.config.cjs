/** Jest runs in native ESM mode: the NestJS 12 packages are ESM-only. */
module.exports = {
  testEnvironment: 'node',
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '.*\\.(spec|e2e-spec)\\.ts$',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // The functions the engine's dependencies use, without the ~430 modules of the package's
    // entry (see the file).
    '^es-toolkit/compat$': '<rootDir>/test/support/es-toolkit-compat.mjs',
  },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  testTimeout: 20000,
  globalSetup: '<rootDir>/test/global-setup.mjs',
  globalTeardown: '<rootDir>/test/global-teardown.mjs',
  // Three workers on two cores: the specs spend a quarter of their time waiting (timers, child
  // processes, sockets), and a third worker fills it (the suite 522 s → 467 s on the 2-core CI
  // machine, CPU 148% → 169%).
  maxWorkers: 3,
  // A worker's heap grows over the spec files it runs (each file's modules are loaded anew in its
  // own context): past 1 GB after a file, the worker is replaced. Left to grow, the two workers
  // ended the suite at ~2.8 GB each, and tearing such a heap down took longer than the 500 ms jest
  // waits for a worker to exit ("a worker process has failed to exit gracefully").
  workerIdleMemoryLimit: '1GB',
};
