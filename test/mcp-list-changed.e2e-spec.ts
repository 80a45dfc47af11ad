import { McpTestServer, useMcpServer, type McpTestTool } from './support/mcp-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { offeredNames, useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { untilAsync } from './support/waiting.js';

const answer = () => ({ content: [{ type: 'text', text: 'ok' }] });
const lookup = (description: string, property: string): McpTestTool => ({
  name: 'lookup_order',
  description,
  inputSchema: { type: 'object', properties: { [property]: { type: 'string' } } },
  answer,
});
const refund: McpTestTool = { name: 'refund', description: 'Refunds an order.', answer };

/**
 * An MCP server that changes its tools says so (`notifications/tools/list_changed`): what the
 * model is offered follows from the next turn, without a reload.
 */
describe('MCP tools when the server changes its list', () => {
  const mcp = new McpTestServer([lookup('Status of an order.', 'order_id'), refund]);
  const served = useMcpServer(mcp);
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOL_BREAKER_COOLDOWN_SECS: '0.3',
    LLM_TOOLS_FILE: writeToolsFile([
      { type: 'mcp', name: 'lookup_order', url: served.url },
      { type: 'mcp', name: 'refund', url: served.url },
      // Described in full by the file: the server's list is not read for it.
      {
        type: 'mcp',
        name: 'cancel',
        tool: 'refund',
        url: served.url,
        description: 'Cancels an order.',
        parameters: { type: 'object', properties: {} },
      },
    ]),
  }));
  const client = useClientPerTest(rig);
  const offered = async (name: string) =>
    (await fetch(`${rig.engine.httpUrl}/api/tools/${name}/offered`)).json() as Promise<any>;
  const unavailable = async () =>
    ((await (await fetch(`${rig.engine.httpUrl}/health`)).json()) as any).tools.unavailable;

  it('offers the new description and schema, drops a tool no longer listed, and offers it again when it is back', async () => {
    expect(await offered('lookup_order')).toMatchObject({ description: 'Status of an order.' });
    await mcp.changeTools([lookup('Where an order is, by its number.', 'number')]);
    await untilAsync(
      async () => (await offered('lookup_order')).description !== 'Status of an order.',
      'the new list applied',
    );
    expect(await offered('lookup_order')).toEqual({
      name: 'lookup_order',
      description: 'Where an order is, by its number.',
      parameters: { type: 'object', properties: { number: { type: 'string' } } },
    });
    // What the model is offered in the next turn: the new tool, without the one gone.
    rig.llm.reset();
    expect(await offeredNames(rig, client.ws)).toEqual(['lookup_order', 'cancel']);
    const [sent] = rig.llm.requests[0]!.body.tools;
    expect(sent.function.description).toBe('Where an order is, by its number.');
    expect(await unavailable()).toEqual(['refund']);
    expect(await offered('cancel')).toMatchObject({ description: 'Cancels an order.' });

    await mcp.changeTools([lookup('Where an order is, by its number.', 'number'), refund]);
    await untilAsync(async () => (await unavailable()).length === 0, 'the tool listed again');
    expect(await offeredNames(rig, client.ws)).toEqual(['lookup_order', 'refund', 'cancel']);

    // Dropped again, then listed again without a word: a tool no longer listed is tried again.
    const now = lookup('Where an order is, by its number.', 'number');
    await mcp.changeTools([now]);
    await untilAsync(async () => (await unavailable()).length === 1, 'the tool dropped again');
    await mcp.changeTools([now, refund], false);
    await untilAsync(async () => (await unavailable()).length === 0, 'the tool tried again');
  });
});
