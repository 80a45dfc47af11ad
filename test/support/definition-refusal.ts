import { ToolDefinitionError, validateToolDefinitions } from '../../src/tools/tool-validation.js';

/** Why a tools file holding `input` (a list of definitions) is refused; fails the test if it is not. */
export function definitionRefusal(input: unknown): string {
  try {
    validateToolDefinitions(input, 'tools.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ToolDefinitionError);
    return (error as Error).message;
  }
  throw new Error('expected a ToolDefinitionError');
}
