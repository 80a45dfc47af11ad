import { validateToolDefinitions } from '../tool-validation.js';
import type { Tool } from '../tool-definition.js';
import { groupTools, relistedNames } from './mcp-listing.js';

const SCHEMA = { type: 'object', properties: {} };
const listed = (...names: string[]) => names.map((name) => ({ name, inputSchema: SCHEMA }));

/** The tool an entry for a server's tools is, until it becomes them. */
function groupOf(entry: Record<string, unknown>): Tool {
  const { tools } = validateToolDefinitions(
    [{ type: 'mcp', url: 'https://crm.example/mcp', ...entry }],
    'tools.json',
  );
  return tools[0]!;
}

describe('groupTools', () => {
  it('names each tool as the engine takes names, telling apart those that come out the same', () => {
    const group = groupOf({ tools: '*', prefix: 'crm-', confirm: true });
    expect(group.name).toBe('crm-*');
    const made = groupTools(
      group,
      listed('orders.cancel', 'orders/cancel', 'x'.repeat(70)),
      () => false,
      'tools.json',
      0,
    );
    expect(made.map((t) => t.name)).toEqual([
      'crm-orders_cancel',
      'crm-orders_cancel_2',
      `crm-${'x'.repeat(60)}`,
    ]);
    expect(made.map((t) => t.remoteName)).toEqual([
      'orders.cancel',
      'orders/cancel',
      'x'.repeat(70),
    ]);
    // Each keeps the entry's other fields, as an entry of its own would.
    expect(made[0]!.raw).toEqual({
      type: 'mcp',
      url: 'https://crm.example/mcp',
      confirm: true,
      name: 'crm-orders_cancel',
      tool: 'orders.cancel',
    });
    expect(made.every((t) => t.confirm && t.mcpGroup === undefined)).toBe(true);
  });

  it('takes with read_only only the tools the server marks read-only, for an assistant that changes nothing', () => {
    const hinted = (name: string, readOnlyHint?: boolean) => ({
      name,
      inputSchema: SCHEMA,
      ...(readOnlyHint !== undefined && { annotations: { readOnlyHint } }),
    });
    const group = groupOf({ tools: '*', read_only: true, prefix: 'crm_' });
    const made = groupTools(
      group,
      [hinted('find_order', true), hinted('cancel_order', false), hinted('notes')],
      () => false,
      'tools.json',
      0,
    );
    expect(made.map((t) => [t.name, t.safe])).toEqual([['crm_find_order', true]]);
    // What GET /api/tools shows: an entry of its own, without the choice.
    expect(made[0]!.raw).not.toHaveProperty('read_only');
    const some = groupTools(
      groupOf({ tools: '*', exclude: ['cancel_order'] }),
      [hinted('find_order', true), hinted('cancel_order', false), hinted('notes')],
      () => false,
      'tools.json',
      0,
    );
    expect(some.map((t) => t.name)).toEqual(['find_order', 'notes']);
    expect(some[1]!.raw).not.toHaveProperty('exclude');
    expect(() => groupOf({ tools: ['a'], exclude: ['b'] })).toThrow(
      `tools.json: tool #0: field 'exclude' chooses among all the tools the server lists ("tools": "*"), not among those named`,
    );
    expect(() => groupOf({ tools: ['a'], read_only: true })).toThrow(
      `tools.json: tool #0: field 'read_only' chooses among all the tools the server lists ("tools": "*"), not among those named`,
    );
  });

  it('leaves out the tools the set has already, and takes only those named', () => {
    const group = groupOf({ tools: ['b', 'c'] });
    const made = groupTools(group, listed('a', 'b', 'c'), (name) => name === 'c', 'tools.json', 2);
    expect(made.map((t) => t.name)).toEqual(['b']);
    expect(() =>
      groupTools(groupOf({ tools: ['d'] }), listed('a'), () => false, 'tools.json', 2),
    ).toThrow("tools.json: tool #2: field 'tools': the MCP server has no tool 'd' (it lists: a)");
  });

  it('takes a tool its server marks open-world (openWorldHint) for untrusted, unless its entry says', () => {
    const marked = [
      { name: 'search_web', inputSchema: SCHEMA, annotations: { openWorldHint: true } },
      { name: 'calc', inputSchema: SCHEMA, annotations: { openWorldHint: false } },
      { name: 'notes', inputSchema: SCHEMA },
    ];
    const made = groupTools(groupOf({ tools: '*' }), marked, () => false, 't', 0);
    expect(made.filter((t) => t.untrusted).map((t) => t.name)).toEqual(['search_web']);
    const trusted = groupTools(
      groupOf({ tools: '*', untrusted: false }),
      marked,
      () => false,
      't',
      0,
    );
    expect(trusted.filter((t) => t.untrusted)).toEqual([]);
    const all = groupTools(groupOf({ tools: '*', untrusted: true }), marked, () => false, 't', 0);
    expect(all.filter((t) => t.untrusted)).toHaveLength(3);
  });

  it('asks approval, with "confirm": "destructive", of the tools the server does not mark harmless', () => {
    const marked = [
      { name: 'look', inputSchema: SCHEMA, annotations: { readOnlyHint: true } },
      { name: 'cancel', inputSchema: SCHEMA },
      { name: 'tag', inputSchema: SCHEMA, annotations: { destructiveHint: false } },
      { name: 'wipe', inputSchema: SCHEMA, annotations: { destructiveHint: true } },
    ];
    const made = groupTools(
      groupOf({ tools: '*', confirm: 'destructive' }),
      marked,
      () => false,
      't',
      0,
    );
    expect(made.filter((t) => t.confirm).map((t) => t.name)).toEqual(['cancel', 'wipe']);
    // Before its server is listed, a tool is not known to be harmless: asked, unless `safe`.
    expect(groupOf({ tools: '*', confirm: 'destructive' }).confirm).toBe(true);
    expect(groupOf({ tools: '*', confirm: 'destructive', safe: true }).confirm).toBeUndefined();
    // An entry with neither a name nor `tools` hears of both.
    expect(() => groupOf({})).toThrow(/field 'name' is required: .* or 'tools' \("\*" or names\)/);
    expect(() => groupOf({ name: 'x', confirm: 'always' })).toThrow(
      `field 'confirm' is invalid: expected true or false (HTTP, OpenAPI and MCP tools: also "destructive")`,
    );
  });

  it('takes readOnlyHint as safe, unless the entry says', () => {
    const hinted = [{ name: 'look', inputSchema: SCHEMA, annotations: { readOnlyHint: true } }];
    expect(groupTools(groupOf({ tools: '*' }), hinted, () => false, 't', 0)[0]!.safe).toBe(true);
    const unsafe = groupOf({ tools: '*', safe: false });
    expect(groupTools(unsafe, hinted, () => false, 't', 0)[0]!.safe).toBe(false);
  });
});

describe('fillListed', () => {
  it("gives a deferred tool its server's titles as keywords, for a search to find it by", () => {
    const { tools } = validateToolDefinitions(
      [
        { type: 'tool_search', name: 'find' },
        {
          type: 'mcp',
          url: 'https://crm.example/mcp',
          tools: '*',
          deferred: true,
          keywords: ['crm'],
        },
      ],
      'tools.json',
    );
    const titled = {
      name: 'orders_cancel',
      title: 'Cancel an order',
      annotations: { title: 'Order cancellation' },
      inputSchema: SCHEMA,
    };
    const [made] = groupTools(tools[1]!, [titled], () => false, 'tools.json', 1);
    expect(made!.keywords).toEqual(['crm', 'Cancel an order', 'Order cancellation']);
    const [plain] = groupTools(groupOf({ tools: '*' }), [titled], () => false, 'tools.json', 0);
    expect(plain!.keywords).toBeUndefined();
  });
});

describe('relistedNames', () => {
  const group = () => groupOf({ tools: '*' });
  const made = (...names: string[]) => groupTools(group(), listed(...names), () => false, 't', 0);

  it('names nothing for a list that reads as before, though its tools are new objects', () => {
    expect(relistedNames(made('a', 'b'), made('a', 'b'))).toEqual([]);
  });

  it('names the tools added, described otherwise, left out (pending) and gone', () => {
    const before = made('a', 'b', 'c', 'd');
    const after = made('a', 'b', 'c', 'e');
    after[1]!.description = 'Now refunds too.';
    after[2]!.pending = "the MCP server no longer lists 'c'";
    expect(relistedNames(before, after)).toEqual(['b', 'c', 'e', 'd']);
  });
});
