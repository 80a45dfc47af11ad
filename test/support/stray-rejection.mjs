// Loaded with --import into the built engine: a promise rejected with no handler once it runs.
setTimeout(() => void Promise.reject(new Error('a stray fault')), 1500);
