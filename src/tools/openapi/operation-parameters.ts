/**
 * An OpenAPI operation's parameters as an HTTP tool writes them: placeholders, styles, the
 * values a schema leaves no choice of. Pure: no Nest import.
 */
import type { JsonSchema, PlaceholderStyle, QueryStyle } from '../tool-definition.js';
import { OperationError } from './operation-error.js';

/** What an HTTP tool's `{placeholder}` may be named. */
export const PLACEHOLDER_NAME = /^[A-Za-z0-9_.-]+$/;

export interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
  style?: string;
  explode?: boolean;
}

export const QUERY_STYLES = new Set(['form', 'spaceDelimited', 'pipeDelimited', 'deepObject']);
/** Query parameters of these types are written as they are, whatever their style. */
export const SCALARS = new Set(['string', 'integer', 'number', 'boolean']);

/**
 * How a path or header parameter is written when it is an array or an object, or styled: `simple`
 * (the default; a header's only style), `label` or `matrix`, and `explode`. Undefined for a scalar
 * in the default style, which a placeholder writes as it is.
 */
export function placeholderStyle(p: Parameter): PlaceholderStyle | undefined {
  const style =
    p.in === 'path' && (p.style === 'label' || p.style === 'matrix') ? p.style : 'simple';
  const scalar = SCALARS.has(String(p.schema?.type));
  if (scalar && style === 'simple') return undefined;
  return { style, ...(typeof p.explode === 'boolean' && { explode: p.explode }) };
}

/** How a query parameter's array or object is written: its `style` (default form) and `explode`. */
export function queryStyle(p: Parameter): QueryStyle {
  const style = QUERY_STYLES.has(p.style ?? '') ? (p.style as QueryStyle['style']) : 'form';
  return { style, ...(typeof p.explode === 'boolean' && { explode: p.explode }) };
}

/** Header parameters OpenAPI 3 says to ignore: the media types and the security scheme say them. */
export const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/** `{name}` for a parameter filled from its argument, if the name can be a placeholder's. */
export function placeholder(p: Parameter): string {
  if (!PLACEHOLDER_NAME.test(p.name))
    throw new OperationError(
      'operation',
      `its ${p.in} parameter ${JSON.stringify(p.name)} has a name a {placeholder} cannot hold (letters, digits, "_", "-", ".")`,
    );
  return `{${p.name}}`;
}

/** The one value a parameter's schema allows (`const`, or an `enum` of one), as text. */
export function onlyValue(schema: JsonSchema | undefined): string | undefined {
  const values = schema?.const !== undefined ? [schema.const] : schema?.enum;
  if (!Array.isArray(values) || values.length !== 1) return undefined;
  const [value] = values as unknown[];
  return ['string', 'number', 'boolean'].includes(typeof value) ? String(value) : undefined;
}
