// Loaded with --import into the built engine: a promise rejected with no handler on SIGUSR2 (sent
// once the engine listens, so that the fault comes in work after start-up, however slow that is).
process.on('SIGUSR2', () => void Promise.reject(new Error('a stray fault')));
