import { McpRelists } from './mcp-relists.js';
import { snapshotOf, type Tool, type ToolSnapshot } from './tool-definition.js';

const tool = (name: string, server: string, description: string) =>
  ({
    kind: 'mcp',
    name,
    server,
    description,
    parameters: {},
    url: `https://${server}.example/mcp?key=k-1`,
    method: 'POST',
    headers: {},
    secrets: {},
    raw: { type: 'mcp', name, url: `https://${server}.example/mcp?key=k-1` },
  }) as unknown as Tool;

/** The registry's side, and a loader completing each server's tools from `lists` (name → description). */
function relistsOver(tools: Tool[], lists: Record<string, Record<string, string>>) {
  const state = { current: snapshotOf('file', tools), installed: 0 };
  const logs: string[] = [];
  const errors: string[] = [];
  const relists = new McpRelists(
    {
      current: () => state.current,
      advance: (next: ToolSnapshot) => {
        state.current = next;
        state.installed++;
      },
    },
    {
      listedBy: (t, key) => (t as unknown as { server: string }).server === key,
      relist: (all, only) => {
        for (const t of all.filter((t) => only.has(t))) {
          const listed = lists[(t as unknown as { server: string }).server]!;
          if (listed[t.name] === undefined)
            t.pending = `the MCP server no longer lists '${t.name}'`;
          else Object.assign(t, { description: listed[t.name], pending: undefined });
        }
        return Promise.resolve();
      },
    },
    { log: (m: string) => logs.push(m), error: (m: string) => errors.push(m), warn: () => {} },
  );
  return { relists, state, logs, errors };
}

describe('McpRelists', () => {
  it('installs nothing, and says nothing, when the list reads as before', async () => {
    const lists = { crm: { lookup: 'Looks up.' } };
    const { relists, state, logs } = relistsOver([tool('lookup', 'crm', 'Looks up.')], lists);
    await relists.relist('crm');
    expect(state.installed).toBe(0);
    expect(logs).toEqual([]);
  });

  it("installs the tools as the server lists them now, naming those that changed, and only that server's", async () => {
    const tools = [tool('lookup', 'crm', 'Looks up.'), tool('route', 'maps', 'Routes.')];
    const lists = { crm: { lookup: 'Looks an order up.' }, maps: { route: 'Plans a route.' } };
    const { relists, state, logs } = relistsOver(tools, lists);
    await relists.relist('crm');
    expect(state.installed).toBe(1);
    expect(state.current.tools.map((t) => t.description)).toEqual([
      'Looks an order up.',
      'Routes.',
    ]);
    expect(logs).toEqual([
      'the tools of the MCP server https://crm.example/mcp changed: lookup as it lists them now, from the next turn',
    ]);
  });

  it('leaves out a tool the server no longer lists, and offers it again once it lists it again', async () => {
    const tools = [tool('lookup', 'crm', 'Looks up.'), tool('refund', 'crm', 'Refunds.')];
    const lists: Record<string, Record<string, string>> = { crm: { lookup: 'Looks up.' } };
    const { relists, state, logs } = relistsOver(tools, lists);
    await relists.relist('crm');
    expect(state.current.tools.map((t) => t.name)).toEqual(['lookup']);
    lists.crm = { lookup: 'Looks up.', refund: 'Refunds.' };
    await relists.relist('crm');
    expect(state.installed).toBe(2);
    expect(state.current.tools.map((t) => t.name)).toEqual(['lookup', 'refund']);
    expect(logs).toHaveLength(2);
  });
});
