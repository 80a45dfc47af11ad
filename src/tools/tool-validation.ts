import { Ajv, type ErrorObject } from 'ajv';
import {
  DEFAULT_PARAMETERS,
  HTTP_TOKEN,
  type HttpToolDefinition,
  type JsonSchema,
  type Tool,
} from './tool-definition.js';

/** Raised when a set of definitions cannot be loaded; the message names source, index, tool and field. */
export class ToolDefinitionError extends Error {}

const ajv = new Ajv({ allErrors: false, strict: false, validateSchema: false });

const definitionSchema = {
  type: 'object',
  required: ['name', 'url'],
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    description: { type: 'string' },
    parameters: { type: 'object' },
    url: { type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]+' },
    method: { type: 'string', minLength: 1 },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
  },
};
const validateDefinition = ajv.compile<HttpToolDefinition>(definitionSchema);
const metaSchemaCheck = new Ajv({ strict: false });

const FIELD_HINTS: Record<string, string> = {
  name: 'a string of letters, digits, "_" or "-" (1 to 64 characters)',
  url: 'an absolute http:// or https:// URL',
  description: 'a string',
  parameters: 'a JSON Schema object',
  method: 'a non-empty string',
  headers: 'an object whose values are strings',
};

function describe(error: ErrorObject): { field: string; why: string } {
  if (error.keyword === 'required') {
    const field = String((error.params as { missingProperty: string }).missingProperty);
    return { field, why: `is required: expected ${FIELD_HINTS[field] ?? 'a value'}` };
  }
  const path = error.instancePath.split('/').filter(Boolean);
  const field = path.join('.');
  const top = path[0] ?? '';
  return {
    field,
    why: `is invalid: expected ${path.length > 1 ? 'a string' : (FIELD_HINTS[top] ?? error.message)}`,
  };
}

export interface ValidationResult {
  tools: Tool[];
  warnings: string[];
}

/**
 * Validates a whole set of definitions; any structural error rejects the set.
 * A method that is not an HTTP token is only a warning: it fails at execution (seed §6).
 */
export function validateToolDefinitions(input: unknown, source: string): ValidationResult {
  if (!Array.isArray(input)) {
    throw new ToolDefinitionError(`${source}: expected a JSON array of tool definitions`);
  }
  if (input.length === 0) {
    throw new ToolDefinitionError(`${source}: the array holds no tool definition`);
  }
  const tools: Tool[] = [];
  const warnings: string[] = [];
  const seen = new Map<string, number>();
  input.forEach((entry: unknown, index) => {
    const where = (name?: unknown) =>
      `${source}: tool #${index}${typeof name === 'string' ? ` '${name}'` : ''}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new ToolDefinitionError(
        `${where()}: expected an object, got ${Array.isArray(entry) ? 'an array' : entry === null ? 'null' : typeof entry}`,
      );
    }
    const name = (entry as { name?: unknown }).name;
    if (!validateDefinition(entry)) {
      const { field, why } = describe(validateDefinition.errors![0]!);
      throw new ToolDefinitionError(`${where(name)}: field '${field}' ${why}`);
    }
    const def = entry;
    const firstIndex = seen.get(def.name);
    if (firstIndex !== undefined) {
      throw new ToolDefinitionError(`${where(name)}: field 'name' duplicates tool #${firstIndex}`);
    }
    seen.set(def.name, index);
    const parameters: JsonSchema = def.parameters ?? DEFAULT_PARAMETERS;
    if (!metaSchemaCheck.validateSchema(parameters)) {
      throw new ToolDefinitionError(
        `${where(name)}: field 'parameters' is not a valid JSON Schema: ${metaSchemaCheck.errorsText(metaSchemaCheck.errors)}`,
      );
    }
    for (const header of Object.keys(def.headers ?? {})) {
      if (!HTTP_TOKEN.test(header)) {
        throw new ToolDefinitionError(
          `${where(name)}: field 'headers' has an invalid header name ${JSON.stringify(header)}`,
        );
      }
    }
    const method = (def.method ?? 'POST').toUpperCase();
    if (!HTTP_TOKEN.test(method)) {
      warnings.push(
        `${where(name)}: method ${JSON.stringify(def.method)} is not a valid HTTP method; calls to this tool will fail`,
      );
    }
    tools.push({
      name: def.name,
      description: def.description ?? '',
      parameters,
      url: def.url,
      method,
      headers: { ...(def.headers ?? {}) },
      raw: def,
    });
  });
  return { tools, warnings };
}
