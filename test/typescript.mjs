// TypeScript compiled as it is loaded, in each jest worker (jest.config.cjs `setupFiles`, before
// any spec file). Registered here rather than by `node --import`, which the threads a worker starts
// would inherit (the engine's eSpeak workers: each started SWC's hooks anew, seconds under load).
import { register } from 'node:module';

register('./typescript-hooks.mjs', import.meta.url);
