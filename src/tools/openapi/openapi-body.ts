/**
 * An OpenAPI 3 operation's request body as a tool's arguments: the properties of its JSON (or
 * form) object. Pure: no Nest import; the spec is already dereferenced.
 */
import type { JsonSchema } from '../tool-definition.js';
import { OperationError } from './operation-error.js';
import { withoutReadOnly } from './openapi-schema.js';

export interface SchemaObject {
  type?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  allOf?: SchemaObject[];
  oneOf?: SchemaObject[];
  anyOf?: SchemaObject[];
}

export interface RequestBody {
  required?: boolean;
  content?: Record<string, { schema?: SchemaObject }>;
}

/** A body's arguments: the object's properties, the names it requires, whether it is a form. */
export interface BodyArguments {
  properties: Record<string, JsonSchema>;
  required: string[];
  form: boolean;
  /** A form sent as multipart/form-data (text fields only), not urlencoded. */
  multipart?: boolean;
  /** What the model is not offered as the document says it (logged when the tools are loaded). */
  note?: string;
  /** A JSON body that is no object (an array, a string): its media type, the body given whole. */
  whole?: string;
}

const FORM = 'application/x-www-form-urlencoded';
const MULTIPART = 'multipart/form-data';

/**
 * Whether a multipart body's schema declares fields, none of them a file (binary, base64 or
 * Swagger's file): one that declares none is taken for an upload.
 */
function textFields(schema: SchemaObject | undefined): boolean {
  const isFile = (s: unknown): boolean =>
    typeof s === 'object' &&
    s !== null &&
    ((s as JsonSchema).format === 'binary' ||
      (s as JsonSchema).format === 'base64' ||
      (s as JsonSchema).type === 'file' ||
      isFile((s as JsonSchema).items));
  const fields = [schema, ...(schema?.allOf ?? [])].flatMap((part) =>
    Object.values(part?.properties ?? {}),
  );
  return fields.length > 0 && !fields.some(isFile);
}
/** Text the model can write: `text/*`, XML. */
const TEXT = /^(text\/[\w.+-]+|application\/([\w.+-]+\+)?xml)\b/i;

/**
 * The arguments of a JSON request body, or else of a form: its object's properties and required
 * names, `allOf` parts merged. A body of alternatives (`oneOf`, `anyOf`: GitHub's "an object, or
 * the array alone") offers its objects' properties, required when every object requires them.
 * Undefined for no body, or for an optional one the tool cannot send (`note` says which: see
 * skippedBody).
 */
export function bodyArguments(body: RequestBody | undefined): BodyArguments | undefined {
  const content = body?.content ?? {};
  const types = Object.keys(content);
  // Any type (`*/*`, as Kubernetes' converted document has its bodies) is taken as JSON.
  // A multipart form of text fields only (a message, a search) is a form; one with a file is not.
  const type =
    types.find((t) => /^application\/([\w.+-]+\+)?json\b/i.test(t)) ??
    types.find((t) => t.toLowerCase().startsWith(FORM)) ??
    types.find((t) => t.toLowerCase() === MULTIPART && textFields(content[t]!.schema)) ??
    (types.includes('*/*') ? '*/*' : undefined);
  const text = type ? undefined : types.find((t) => TEXT.test(t));
  // A text or XML body (CloudFront's XML, a note as text/plain): one argument, the text as it is.
  if (text)
    return {
      properties: { body: { type: 'string', description: `The request body, as ${text}` } },
      required: body?.required === true ? ['body'] : [],
      form: false,
      whole: text,
    };
  if (!type) {
    if (body?.required === true)
      throw new OperationError(
        'operation',
        `its request body is neither JSON, a form nor text (${types.join(', ')})`,
      );
    return undefined;
  }
  const form = type.toLowerCase().startsWith(FORM) || type.toLowerCase() === MULTIPART;
  const what = form ? 'form' : 'JSON request body';
  const schema = withoutReadOnly((content[type]!.schema ?? {}) as JsonSchema) as SchemaObject;
  const shape = objectOf(schema);
  if ('not' in shape && form)
    throw new OperationError(
      'operation',
      `its form is ${shape.not}, not an object: a form's fields are an object's`,
    );
  // An array (Petstore's createWithArray) or a string: one argument, the body as it is.
  if ('not' in shape)
    return {
      properties: { body: { description: 'The request body', ...(schema as JsonSchema) } },
      required: body?.required === true ? ['body'] : [],
      form: false,
      whole: type === '*/*' ? 'application/json' : type,
    };
  const { properties, required, alternatives } = shape;
  const note =
    Object.keys(properties).length === 0
      ? `its ${what} declares no properties, so the model is offered none: give 'parameters' to name them`
      : alternatives > 1
        ? `its ${what} is one of ${alternatives} objects: the model is offered their properties together, required only where every one requires them (give 'parameters' to describe it better)`
        : undefined;
  const multipart = type.toLowerCase() === MULTIPART;
  return { properties, required, form, ...(multipart && { multipart }), ...(note && { note }) };
}

/** What an operation's optional body that the tool cannot send is called among what is left out. */
export function skippedBody(body: RequestBody | undefined): string | undefined {
  const types = Object.keys(body?.content ?? {});
  return types.length > 0 ? `request body (${types.join(', ')})` : undefined;
}

interface ObjectShape {
  properties: Record<string, JsonSchema>;
  required: string[];
  /** How many objects it may be (its alternatives, `oneOf` and `anyOf`). */
  alternatives: number;
}
type Shape = ObjectShape | { not: string };

/** A schema as an object's properties (`allOf` merged, alternatives joined), or what it is instead. */
function objectOf(schema: SchemaObject): Shape {
  // `true` (OpenAPI 3.1's schema of anything), or a document's stray value: no properties.
  if (typeof schema !== 'object' || schema === null)
    return { properties: {}, required: [], alternatives: 1 };
  if (!typeAllowsObject(schema.type)) return { not: JSON.stringify(schema.type) };
  const properties: Record<string, JsonSchema> = { ...(schema.properties ?? {}) };
  const required = listOf(schema.required).filter((n): n is string => typeof n === 'string');
  let alternatives = 1;
  for (const part of listOf(schema.allOf)) {
    const shape = objectOf(part);
    if ('not' in shape) return shape;
    Object.assign(properties, shape.properties);
    required.push(...shape.required);
    alternatives = Math.max(alternatives, shape.alternatives);
  }
  const choices = [...listOf(schema.oneOf), ...listOf(schema.anyOf)].map(objectOf);
  const objects = choices.filter((c): c is ObjectShape => !('not' in c));
  if (choices.length > 0 && objects.length === 0)
    return { not: `one of ${choices.map((c) => (c as { not: string }).not).join(', ')}` };
  if (objects.length > 0) {
    for (const o of objects)
      for (const [name, s] of Object.entries(o.properties)) properties[name] ??= s;
    const everywhere = objects[0]!.required.filter((n) =>
      objects.every((o) => o.required.includes(n)),
    );
    required.push(...everywhere);
    alternatives = Math.max(
      alternatives,
      objects.reduce((n, o) => n + o.alternatives, 0),
    );
  }
  return { properties, required: [...new Set(required)], alternatives };
}

/**
 * A schema's list (`required`, `allOf`, …); a document's other value there (`"required": 0`,
 * which no validator of the document caught) is taken as none, as the service would not ask it.
 */
const listOf = <T>(value: T[] | undefined): T[] => (Array.isArray(value) ? value : []);

/** `type` is absent, `object`, or (OpenAPI 3.1) a list of types holding `object`. */
function typeAllowsObject(type: unknown): boolean {
  if (type === undefined || type === 'object') return true;
  return Array.isArray(type) && type.includes('object');
}

/** What an argument a body template fills may be named (see body-template.ts). */
const ARGUMENT_NAME = /^[A-Za-z0-9_.-]+$/;

/** A body's properties as arguments beside its operation's parameters. */
export interface PlacedBody {
  properties: Record<string, JsonSchema>;
  required: string[];
  /**
   * The body written by argument (`{"username": "{body_username}"}`) when one is renamed, or
   * the one argument that is the whole body (`"{body}"`).
   */
  template?: Record<string, string> | string;
  /** The renames, for the log. */
  note?: string;
}

/**
 * The body's properties as arguments beside parameters named `taken`. A property named like a
 * parameter (Petstore's `PUT /user/{username}` with a `username` in its body: the record, and
 * its new name) is offered as `body_<name>`, described so, and the body is then written by a
 * template that names each property's argument (absent arguments left out, as otherwise).
 */
export function placeBody(
  body: BodyArguments,
  taken: ReadonlySet<string>,
  /** The body is written by template even when no property is renamed (a DELETE's). */
  byTemplate = false,
): PlacedBody {
  if (body.whole !== undefined) {
    const arg = taken.has('body') ? 'request_body' : 'body';
    if (taken.has(arg))
      throw new OperationError(
        'operation',
        `its parameters are named 'body' and 'request_body': the whole body has no name`,
      );
    return {
      properties: { [arg]: body.properties.body! },
      required: body.required.length > 0 ? [arg] : [],
      template: `{${arg}}`,
    };
  }
  const renamed = Object.keys(body.properties).filter((name) => taken.has(name));
  const argOf = (name: string) => (renamed.includes(name) ? `body_${name}` : name);
  // Each property by its argument; a required one the body does not declare (Spotify's `uris`) too.
  const template = () =>
    Object.fromEntries(
      [...new Set([...Object.keys(body.properties), ...body.required])].map((n) => [
        n,
        `{${argOf(n)}}`,
      ]),
    );
  if (renamed.length === 0)
    return {
      properties: body.properties,
      required: body.required,
      ...(byTemplate && { template: template() }),
    };
  const properties: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(body.properties)) {
    const arg = argOf(name);
    if (!ARGUMENT_NAME.test(name) || taken.has(arg) || Object.hasOwn(properties, arg))
      throw new OperationError(
        'operation',
        `its body property '${name}' has the name of one of its parameters, and cannot be offered as '${arg}': the tool's arguments cannot hold both`,
      );
    const said = `In the request body, apart from the parameter '${name}'.`;
    const description =
      typeof schema.description === 'string' ? `${said} ${schema.description}` : said;
    properties[arg] = arg === name ? schema : { ...schema, description };
  }
  return {
    properties,
    required: body.required.map(argOf),
    template: template(),
    note: `its body's ${renamed.map((n) => `'${n}'`).join(', ')} ${renamed.length > 1 ? 'are' : 'is'} offered as ${renamed.map((n) => `'body_${n}'`).join(', ')}: ${renamed.length > 1 ? 'its parameters have those names' : 'a parameter has that name'}`,
  };
}
