import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { safeParse } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { describeFailure } from './mcp-faults.js';

/** The error the SDK rejects a call with when the server's result is `result`. */
function refusedResult(result: unknown): unknown {
  const parsed = safeParse(CallToolResultSchema, result);
  if (parsed.success) throw new Error('the result keeps to MCP');
  return parsed.error;
}

describe('describeFailure of a result that does not keep to MCP', () => {
  it('says in one line where and how, not the schema check dumped as JSON', () => {
    for (const [result, said] of [
      [{ content: { a: 1 } }, 'content: Invalid input: expected array, received object'],
      [
        { content: [], isError: 'yes' },
        'isError: Invalid input: expected boolean, received string',
      ],
      [
        { content: [{ type: 'text', text: null }] },
        'content/0/text: Invalid input: expected string, received null',
      ],
      // The block's own kind, not the first MCP has.
      [
        {
          content: [
            { type: 'text', text: 'ok' },
            { type: 'image', data: 7, mimeType: 'image/png' },
          ],
        },
        'content/1/data: Invalid input: expected string, received number',
      ],
      [{ content: [{ type: 'video' }] }, 'content/0: of no kind MCP has'],
    ] as const)
      expect(describeFailure(refusedResult(result), 30)).toBe(
        `the MCP server's answer does not keep to MCP: ${said}`,
      );
  });
});
