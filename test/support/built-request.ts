import { buildHttpRequest, type BuiltRequest } from '../../src/tools/http-request-builder.js';
import { validateToolDefinitions } from '../../src/tools/tool-validation.js';

/** A tools file of one HTTP tool, `t`, with `def`'s fields, validated as tools.json. */
export function validatedTool(def: Record<string, unknown>) {
  return validateToolDefinitions([{ name: 't', ...def }], 'tools.json');
}

/** The tool `def` describes, validated. */
export function toolOf(def: Record<string, unknown>) {
  return validatedTool(def).tools[0]!;
}

/** The request a call of the tool `def` describes with `args` sends; throws its error text. */
export function builtRequest(
  def: Record<string, unknown>,
  args: Record<string, unknown>,
): BuiltRequest {
  const result = buildHttpRequest(toolOf(def), args);
  if ('error' in result) throw new Error(result.error);
  return result;
}
