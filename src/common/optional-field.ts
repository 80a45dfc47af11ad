/**
 * A message field that may be left out. Pure: no Nest import.
 */
import { ValidateIf } from 'class-validator';

/**
 * The field may be left out; given, `null` too, it is checked by its other rules. class-validator's
 * `IsOptional` skips them for `null` as well, and a `null` then reached code that reads a string
 * or a number (`"instructions": null` failed its session.update with an internal error). A field
 * for which `null` means something says so with its own `ValidateIf`.
 */
export const Optional = (): PropertyDecorator =>
  ValidateIf((_object: object, value: unknown) => value !== undefined);
