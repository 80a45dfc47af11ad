import { ListToolsResultSchema, ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { ShapeError } from './mcp-faults.js';
import { readListing } from './mcp-listing-read.js';

const schemas = { ListToolsResultSchema, ToolSchema };
const good = { name: 'find_order', inputSchema: { type: 'object' } };

describe('readListing', () => {
  it('checks each tool alone: one listed wrong comes with its flaw, the others as MCP reads them', () => {
    const page = {
      tools: [
        good,
        { name: 'cancel', description: null, inputSchema: { type: 'object' } },
        { name: 7 },
      ],
      nextCursor: 'p2',
    };
    expect(readListing(page, schemas)).toEqual({
      tools: [
        good,
        {
          name: 'cancel',
          inputSchema: {},
          flaw: 'description: Invalid input: expected string, received null',
        },
        { name: '', inputSchema: {}, flaw: expect.stringMatching(/^(name|inputSchema): /) },
      ],
      nextCursor: 'p2',
    });
  });

  it('refuses a page of the wrong shape, saying where', () => {
    for (const [page, said] of [
      [{ tools: { a: 1 } }, 'tools: Invalid input: expected array, received object'],
      [
        { tools: [good], nextCursor: 5 },
        'nextCursor: Invalid input: expected string, received number',
      ],
      [{}, 'tools: Invalid input: expected array, received undefined'],
    ] as const) {
      const refused = (() => {
        try {
          readListing(page, schemas);
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(refused).toBeInstanceOf(ShapeError);
      expect((refused as Error).message).toBe(
        `the MCP server's answer does not keep to MCP: ${said}`,
      );
    }
  });
});
