import { ToolDefinitionError } from '../../src/tools/definition-error.js';
import { expandOpenApi, type ExpandOptions } from '../../src/tools/openapi/openapi-expand.js';

/** The message expanding `input` (the entries of tools.json) fails with. */
export async function expandRefusal(input: unknown[], opts: ExpandOptions): Promise<string> {
  const error = await expandOpenApi(input, 'tools.json', opts).then(
    () => new Error('no error'),
    (e: unknown) => e as Error,
  );
  expect(error).toBeInstanceOf(ToolDefinitionError);
  return error.message;
}
