import type { AnySchema, Ajv, ValidateFunction } from 'ajv';

/**
 * A check compiled from `schema` at its first use rather than when its module loads. Compiling
 * the engine's own schemas took ~150 ms of every process's start-up (each `ENGINE_PROCESSES`
 * worker's too), for checks most processes never run (a transfer tool's shape, a client's tool
 * list). The function reads as Ajv's own: `check(data)`, then `check.errors`. Pure: no Nest import.
 */
export function compiledOnUse<T>(ajv: () => Ajv, schema: AnySchema): ValidateFunction<T> {
  let compiled: ValidateFunction<T> | undefined;
  const get = () => (compiled ??= ajv().compile<T>(schema));
  const check = ((data: unknown) => get()(data)) as ValidateFunction<T>;
  Object.defineProperty(check, 'errors', { get: () => get().errors });
  return check;
}
