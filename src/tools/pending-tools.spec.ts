import { snapshotOf, type Tool } from './tool-definition.js';
import { listPending } from './pending-tools.js';

const tool = (name: string, pending?: string) =>
  ({ kind: 'mcp', name, ...(pending && { pending }) }) as unknown as Tool;

describe('listPending', () => {
  it('offers the tools listed this time, leaves the others pending, and changes not the set in use', async () => {
    const inUse = snapshotOf('file', [tool('a'), tool('b', 'down'), tool('c', 'down')]);
    const next = await listPending(inUse, (tools, only) => {
      for (const t of tools) if (only.has(t) && t.name === 'b') t.pending = undefined;
      return Promise.resolve();
    });
    expect(next.offered).toEqual(['b']);
    expect(next.snapshot.tools.map((t) => t.name)).toEqual(['a', 'b']);
    expect(next.snapshot.definitions.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(inUse.tools.map((t) => t.name)).toEqual(['a']);
    expect(inUse.definitions[1]!.pending).toBe('down');
  });

  it('keeps tools pending when the completion fails part way, and says why', async () => {
    const inUse = snapshotOf('file', [tool('b', 'down'), tool('c', 'down')]);
    const next = await listPending(inUse, (tools) => {
      tools[0]!.pending = undefined;
      return Promise.reject(new Error("the MCP server has no tool 'c'"));
    });
    expect(next.offered).toEqual(['b']);
    expect(next.error).toBe("the MCP server has no tool 'c'");
    expect(next.snapshot.tools.map((t) => t.name)).toEqual(['b']);
  });
});
