import { McpTestServer } from '../../../test/support/mcp-server.js';
import { MAX_MCP_CONNECTIONS, McpClients, type McpTarget } from './mcp-clients.js';

/** Connections to a real MCP server (the SDK's Streamable HTTP transport) on loopback. */
describe('McpClients', () => {
  let release: () => void = () => undefined;
  let held = new Promise<void>((r) => (release = r));
  const server = new McpTestServer([
    {
      name: 'hold',
      answer: async (_args, { signal }) => {
        await Promise.race([
          held,
          new Promise((r) => signal.addEventListener('abort', r, { once: true })),
        ]);
        return { content: [{ type: 'text', text: signal.aborted ? 'aborted' : 'released' }] };
      },
    },
    { name: 'echo', answer: (args) => ({ content: [{ type: 'text', text: String(args.v) }] }) },
  ]);
  let url = '';
  let clients: McpClients;
  beforeAll(async () => {
    url = await server.start();
  });
  afterAll(() => server.stop());
  beforeEach(() => {
    clients = new McpClients('test');
    held = new Promise<void>((r) => (release = r));
    server.sessionsOpened = 0;
  });
  afterEach(() => clients.close());

  const target = (headers: Record<string, string> = {}): McpTarget => ({ url, headers });
  const limits = { timeoutMs: 5000 };

  it('shares one session between calls, and a call cut short leaves it to the others', async () => {
    const cut = new AbortController();
    const kept = clients.call(target(), 'hold', {}, limits);
    const cancelled = clients.call(target(), 'hold', {}, { ...limits, signal: cut.signal });
    await new Promise((r) => setTimeout(r, 50));
    cut.abort();
    await expect(cancelled).rejects.toBeDefined();
    release();
    expect((await kept).content).toEqual([{ type: 'text', text: 'released' }]);
    expect((await clients.call(target(), 'echo', { v: 1 }, limits)).content).toEqual([
      { type: 'text', text: '1' },
    ]);
    expect(server.sessionsOpened).toBe(1);
  });

  it('lets go of the least recently used connection past the limit, but only once its calls end', async () => {
    const first = clients.call(target({ 'X-User': 'first' }), 'hold', {}, limits);
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < MAX_MCP_CONNECTIONS; i++)
      await clients.call(target({ 'X-User': `u${i}` }), 'echo', { v: i }, limits);
    expect(clients.size).toBe(MAX_MCP_CONNECTIONS);
    release();
    // The first connection was let go while its call ran: the call still ends with its answer.
    expect((await first).content).toEqual([{ type: 'text', text: 'released' }]);
    expect(server.sessionsOpened).toBe(MAX_MCP_CONNECTIONS + 1);
  });
});
