import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');

/**
 * A full garbage collection of this thread's heap now (as a busy engine has them every few
 * seconds), for tests of what must outlive one: the engine in-process is collected with the test.
 */
export const collectGarbage = runInNewContext('gc') as () => void;
