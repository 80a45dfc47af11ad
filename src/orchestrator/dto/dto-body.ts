import { validateSync } from 'class-validator';

/**
 * A request's JSON `body` as an instance of `cls`: an object with only `fields`; else why not
 * (`expected` says what it should be).
 */
export function dtoOf<T extends object>(
  cls: new () => T,
  fields: ReadonlySet<string>,
  body: unknown,
  expected: string,
): T | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return `expected ${expected}`;
  const unknown = Object.keys(body).find((key) => !fields.has(key));
  if (unknown !== undefined)
    return `unknown field ${JSON.stringify(unknown)}: expected ${[...fields].join(', ')}`;
  return Object.assign(new cls(), body);
}

/** The first rule of its class `dto` breaks (class-validator), or undefined. */
export function firstViolation(dto: object): string | undefined {
  const failed = validateSync(dto, { forbidUnknownValues: false })[0]?.constraints;
  return failed && Object.values(failed)[0];
}
