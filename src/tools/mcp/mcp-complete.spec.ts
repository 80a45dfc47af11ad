import { ToolDefinitionError } from '../definition-error.js';
import { validateToolDefinitions } from '../tool-validation.js';
import type { Tool } from '../tool-definition.js';
import { completeListings, type CompleteOptions } from './mcp-complete.js';
import type { McpListedTool, McpTarget } from './mcp-target.js';

const CRM = 'https://crm.example/mcp';
const MAPS = 'https://maps.example/mcp';
const SCHEMA = { type: 'object', properties: { id: { type: 'string' } } };

/** Servers by URL: their lists, or the failure of `tools/list`; each request is recorded. */
function servers(lists: Record<string, McpListedTool[] | Error>) {
  const asked: { url: string; timeoutMs: number }[] = [];
  const warnings: string[] = [];
  return {
    asked,
    warnings,
    list(target: McpTarget, timeoutMs: number): Promise<McpListedTool[]> {
      asked.push({ url: target.url, timeoutMs });
      const list = lists[target.url];
      return list instanceof Error ? Promise.reject(list) : Promise.resolve(list ?? []);
    },
    timeoutSecs: 15,
    warn: (line: string) => warnings.push(line),
  };
}

function toolsOf(entries: Record<string, unknown>[]): Tool[] {
  return validateToolDefinitions(
    entries.map((e) => ({ type: 'mcp', ...e })),
    'tools.json',
  ).tools;
}

async function complete(
  tools: Tool[],
  server: ReturnType<typeof servers>,
  opts: CompleteOptions = {},
): Promise<Tool[]> {
  await completeListings(tools, 'tools.json', opts, server);
  return tools;
}

describe('completeListings', () => {
  it("fills each tool's description, schema and hints from one list a server, in the tool's time", async () => {
    const server = servers({
      [CRM]: [
        { name: 'find_order', description: 'Finds an order', inputSchema: SCHEMA },
        {
          name: 'cancel_order',
          description: 'Cancels an order',
          inputSchema: SCHEMA,
          annotations: { destructiveHint: true },
        },
      ],
      [MAPS]: [
        {
          name: 'route',
          description: 'A route',
          inputSchema: SCHEMA,
          annotations: { readOnlyHint: true },
        },
      ],
    });
    const tools = await complete(
      toolsOf([
        { name: 'find_order', url: CRM },
        { name: 'cancel_order', url: CRM, description: 'Ours', confirm: 'destructive' },
        { name: 'route', url: MAPS, timeout_secs: 3 },
      ]),
      server,
    );
    expect(tools.map((t) => t.description)).toEqual(['Finds an order', 'Ours', 'A route']);
    expect(tools.map((t) => t.parameters)).toEqual([SCHEMA, SCHEMA, SCHEMA]);
    expect(tools.map((t) => [t.safe, t.confirm])).toEqual([
      [undefined, undefined],
      [undefined, true],
      [true, undefined],
    ]);
    expect(server.asked).toEqual([
      { url: CRM, timeoutMs: 15_000 },
      { url: MAPS, timeoutMs: 3000 },
    ]);
  });

  it('refuses a tool its server lacks, naming the tool, the field and what the server lists', async () => {
    const server = servers({ [CRM]: [{ name: 'find_order', inputSchema: SCHEMA }] });
    const tools = toolsOf([{ name: 'crm_lookup', tool: 'lookup', url: CRM }]);
    const completing = complete(tools, server);
    await expect(completing).rejects.toThrow(ToolDefinitionError);
    await expect(completing).rejects.toThrow(
      "tools.json: tool #0 'crm_lookup': field 'tool': the MCP server has no tool 'lookup' (it lists: find_order)",
    );
  });

  it('refuses a server that cannot be listed at start-up, or leaves its tools pending with defer, the others completed', async () => {
    const down = new Error('connect ECONNREFUSED 127.0.0.1:1');
    const lists = { [CRM]: down, [MAPS]: [{ name: 'route', inputSchema: SCHEMA }] };
    const entries = [
      { name: 'find_order', url: CRM },
      { name: 'route', url: MAPS },
    ];
    await expect(complete(toolsOf(entries), servers(lists))).rejects.toThrow(
      "tools.json: tool #0 'find_order': field 'url': cannot list the tools of the MCP server: ",
    );

    const server = servers(lists);
    const tools = await complete(toolsOf(entries), server, { defer: true });
    expect(tools[0]!.pending).toMatch(/^cannot list the tools of the MCP server: .*ECONNREFUSED/);
    expect(tools[1]!.pending).toBeUndefined();
    expect(tools[1]!.parameters).toEqual(SCHEMA);
    expect(server.warnings).toEqual([
      `tools.json: tool #0 'find_order': not offered to the model until its server answers: ${tools[0]!.pending}`,
    ]);
  });

  it('leaves pending a tool its server no longer lists once it said its list changed', async () => {
    const server = servers({ [CRM]: [{ name: 'find_order', inputSchema: SCHEMA }] });
    const tools = await complete(toolsOf([{ name: 'cancel_order', url: CRM }]), server, {
      relisted: true,
    });
    expect(tools[0]!.pending).toBe("the MCP server no longer lists 'cancel_order'");
    expect(server.warnings).toEqual([
      "tools.json: tool #0 'cancel_order': not offered to the model: the MCP server no longer lists 'cancel_order'",
    ]);
  });

  it("puts the tools an entry for a server's tools makes in its place, and says when it makes none", async () => {
    const server = servers({
      [CRM]: [
        { name: 'find_order', inputSchema: SCHEMA },
        { name: 'cancel_order', inputSchema: SCHEMA },
      ],
      [MAPS]: [],
    });
    const tools = await complete(
      toolsOf([
        {
          name: 'weather',
          url: 'https://weather.example/mcp',
          description: 'W',
          parameters: SCHEMA,
        },
        { url: CRM, tools: '*', prefix: 'crm_' },
        { url: MAPS, tools: '*', prefix: 'maps_' },
      ]),
      server,
    );
    expect(tools.map((t) => t.name)).toEqual(['weather', 'crm_find_order', 'crm_cancel_order']);
    // The tool given its description and parameters asks its server nothing.
    expect(server.asked.map((a) => a.url)).toEqual([CRM, MAPS]);
    expect(server.warnings).toEqual([
      "tools.json: tool #2: the entry for the MCP server's tools makes none: it lists none",
    ]);
  });

  it('leaves out a tool its server lists as MCP does not allow, the others made, and refuses a definition naming it', async () => {
    const flaw = 'description: Invalid input: expected string, received null';
    const lists = {
      [CRM]: [
        { name: 'find_order', inputSchema: SCHEMA },
        { name: 'cancel_order', inputSchema: {}, flaw },
      ],
    };
    const server = servers(lists);
    const tools = await complete(toolsOf([{ url: CRM, tools: '*' }]), server);
    expect(tools.map((t) => t.name)).toEqual(['find_order']);
    expect(server.warnings).toEqual([
      `tools.json: tool #0: the MCP server lists a tool as MCP does not allow, left out: 'cancel_order': ${flaw}`,
    ]);
    await expect(
      complete(toolsOf([{ url: CRM, name: 'cancel_order' }]), servers(lists)),
    ).rejects.toThrow(
      `tools.json: tool #0 'cancel_order': field 'name': the MCP server lists 'cancel_order' as MCP does not allow: ${flaw}`,
    );
  });
});
