// Module hooks for the spec files' TypeScript (test/typescript.mjs registers them): SWC's
// (@swc-node/register), with their failures made readable. An error thrown in the hooks' thread
// reaches the test's with only its enumerable fields, and the runner's report of a spec file that
// failed to load with none ("thrown: Object {}"): a syntax error, a module not found.
import { load as swcLoad, resolve as swcResolve } from '@swc-node/register/esm';

/** `error` as one that keeps its message and stack across threads. */
function readable(error, url) {
  const message = String(error?.message ?? error)
    .split('\nStack backtrace:')[0]
    .trimEnd();
  const name = error?.code === 'GenericFailure' ? 'SyntaxError' : (error?.name ?? 'Error');
  const failure = new Error(message);
  // The module as where it failed, not the hooks' own frames.
  Object.defineProperties(failure, {
    name: { value: name, enumerable: true },
    message: { value: message, enumerable: true },
    stack: { value: `${name}: ${message}\n    at ${url}:0:0`, enumerable: true },
    ...(error?.code && { code: { value: error.code, enumerable: true } }),
  });
  return failure;
}

export async function resolve(specifier, context, nextResolve) {
  try {
    return await swcResolve(specifier, context, nextResolve);
  } catch (error) {
    throw readable(error, context.parentURL ?? specifier);
  }
}

export async function load(url, context, nextLoad) {
  try {
    return await swcLoad(url, context, nextLoad);
  } catch (error) {
    throw readable(error, url);
  }
}
