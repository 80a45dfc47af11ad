import { type McpTestTool } from './support/mcp-server.js';
import { useMcpServerRig } from './support/mcp-server-rig.js';
import { samples } from './support/prometheus.js';

const answer = () => ({ content: [{ type: 'text', text: 'ok' }] });
const lookup: McpTestTool = { name: 'lookup', description: 'Looks an order up.', answer };
const refund: McpTestTool = { name: 'refund', description: 'Refunds an order.', answer };
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * LLM_TOOLS_MCP_LIST_WATCH_SECS: the servers the tools in use take from are listed again that
 * often, for those that never say their tools changed — a stateless one has no session to say it
 * on. A list that reads otherwise applies from the next turn; a server that cannot be listed
 * changes nothing.
 */
describe('MCP servers listed again every LLM_TOOLS_MCP_LIST_WATCH_SECS', () => {
  const { server, rig, offered, offersAll, restart } = useMcpServerRig(
    [lookup],
    { stateless: true },
    { LLM_TOOLS_MCP_LIST_WATCH_SECS: '0.2' },
  );

  it("offers a stateless server's new list from a turn soon after, and leaves out a tool it no longer lists", async () => {
    expect(await offered()).toEqual(['lookup']);
    await server.mcp.changeTools([lookup, refund]);
    await offersAll(['lookup', 'refund']);
    await server.mcp.changeTools([refund]);
    await offersAll(['refund']);
    expect(server.mcp.calls).toEqual([]);
  });

  it('keeps the tools offered while the server cannot be listed, and takes its list once it can', async () => {
    await restart([lookup], async () => {
      // Several rounds of the watch meet a refused connection.
      await pause(1000);
      expect(await offered()).toEqual(['refund']);
    });
    // `lookup`, left out while not listed, is offered again; `refund` is left out now.
    await offersAll(['lookup']);
  });

  it('lists each server once a round, counting each read by what it found', async () => {
    const reads = async () => {
      const got = samples(await (await fetch(`${rig.engine.httpUrl}/metrics`)).text());
      const count = (outcome: string) =>
        got.get(`agent_engine_mcp_list_reads_total{outcome="${outcome}"}`) ?? 0;
      return { same: count('same'), changed: count('changed'), failed: count('failed') };
    };
    const before = { lists: server.mcp.lists, ...(await reads()) };
    // The tests before: lists changed, and a server down.
    expect(before.changed).toBeGreaterThanOrEqual(3);
    expect(before.failed).toBeGreaterThanOrEqual(2);
    await pause(1000);
    // Five rounds in a second, one tools/list each (some slack for a busy machine).
    expect(server.mcp.lists - before.lists).toBeGreaterThanOrEqual(2);
    expect(server.mcp.lists - before.lists).toBeLessThanOrEqual(6);
    const after = await reads();
    // Each list the server answered is a read that found it the same (a round in flight as either
    // is read may be counted by one and not yet by the other).
    const lists = server.mcp.lists - before.lists;
    expect(after.same - before.same).toBeGreaterThanOrEqual(lists - 1);
    expect(after.same - before.same).toBeLessThanOrEqual(lists + 1);
    expect([after.changed, after.failed]).toEqual([before.changed, before.failed]);
    expect(await offered()).toEqual(['lookup']);
  });
});
