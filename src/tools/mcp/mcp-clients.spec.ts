import { McpTestServer, type McpTestTool } from '../../../test/support/mcp-server.js';
import { collectGarbage } from '../../../test/support/gc.js';
import { until, untilAsync } from '../../../test/support/waiting.js';
import { MAX_MCP_CONNECTIONS, McpClients, type McpTarget } from './mcp-clients.js';

/** Connections to a real MCP server (the SDK's Streamable HTTP transport) on loopback. */
describe('McpClients', () => {
  let release: () => void = () => undefined;
  let held = new Promise<void>((r) => (release = r));
  const tools: McpTestTool[] = [
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
    { name: 'big', answer: () => ({ content: [{ type: 'text', text: 'x'.repeat(300_000) }] }) },
  ];
  const server = new McpTestServer(tools);
  let url = '';
  let clients: McpClients;
  beforeAll(async () => {
    url = await server.start();
  });
  afterAll(() => server.stop());
  beforeEach(() => {
    clients = new McpClients('test', 1024 * 1024);
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
    // Held while every other connection opens, one after another: slow on a busy machine.
    const first = clients.call(target({ 'X-User': 'first' }), 'hold', {}, { timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < MAX_MCP_CONNECTIONS; i++)
      await clients.call(target({ 'X-User': `u${i}` }), 'echo', { v: i }, limits);
    expect(clients.size).toBe(MAX_MCP_CONNECTIONS);
    release();
    // The first connection was let go while its call ran: the call still ends with its answer.
    expect((await first).content).toEqual([{ type: 'text', text: 'released' }]);
    expect(server.sessionsOpened).toBe(MAX_MCP_CONNECTIONS + 1);
  });

  it.each([false, true])(
    'refuses an answer larger than its limit, and the next call goes through (JSON answers: %s)',
    async (json) => {
      const other = json ? new McpTestServer([...tools], { json: true }) : undefined;
      const at = other ? { url: await other.start(), headers: {} } : target();
      const bounded = new McpClients('test', 100_000);
      try {
        await expect(bounded.call(at, 'big', {}, limits)).rejects.toThrow(
          "the MCP server's answer is larger than LLM_TOOL_MAX_RESPONSE_BYTES (100000 bytes)",
        );
        expect((await bounded.call(at, 'echo', { v: 2 }, limits)).content).toEqual([
          { type: 'text', text: '2' },
        ]);
      } finally {
        await bounded.close();
        await other?.stop();
      }
    },
  );

  it("keeps nothing of a call once it has ended: its turn's callbacks are collected", async () => {
    // Given a composite signal (AbortSignal.any), the SDK's listener, which it never takes off,
    // kept the signal in Node's own set for ever, and with it the call's whole turn.
    const kept: WeakRef<object>[] = [];
    const callOfATurn = async (i: number) => {
      const meter = { calls: 0 };
      kept.push(new WeakRef(meter));
      const onProgress = () => void meter.calls++;
      const turn = new AbortController();
      await clients.call(
        target(),
        'echo',
        { v: i },
        { ...limits, signal: turn.signal, onProgress },
      );
    };
    for (let i = 0; i < 5; i++) await callOfATurn(i);
    await new Promise((r) => setTimeout(r, 10));
    collectGarbage();
    expect(kept.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
  });

  it('lists every tool of a server that pages its list', async () => {
    const many = Array.from({ length: 7 }, (_, i) => ({
      name: `t${i}`,
      answer: () => ({ content: [] }),
    }));
    const paged = new McpTestServer(many, { pageSize: 3 });
    try {
      const listed = await clients.list({ url: await paged.start(), headers: {} }, limits);
      expect(listed.map((t) => t.name)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6']);
      expect(paged.lists).toBe(3);
    } finally {
      await paged.stop();
    }
  });

  it.each([
    ['an event stream', {}],
    ['JSON', { json: true }],
    ['a resumable event stream', { resumable: true }],
  ])(
    "lets go of a cut call's answer (%s): no connection left open, no listener gathered",
    async (_kind, options) => {
      const warnings: Error[] = [];
      const onWarning = (warning: Error) => warnings.push(warning);
      process.on('warning', onWarning);
      const many = Array.from({ length: 25 }, (_, i) => ({
        name: `t${i}`,
        answer: () => ({ content: [] }),
      }));
      const server = new McpTestServer([...tools, ...many], { ...options, pageSize: 1 });
      try {
        const one = { url: await server.start(), headers: {} };
        // A list of many pages read under one signal.
        const turn = new AbortController();
        expect(await clients.list(one, { ...limits, signal: turn.signal })).toHaveLength(28);
        const open = await server.openConnections();
        // Each call cut short tells the server (`notifications/cancelled`, answered 202), which
        // never answers it.
        for (let i = 0; i < 15; i++) {
          const cut = new AbortController();
          const call = clients.call(one, 'hold', {}, { ...limits, signal: cut.signal });
          await until(() => server.running === 1, 'the call on the server');
          cut.abort();
          await expect(call).rejects.toBeDefined();
          await until(() => server.running === 0, 'the call stopped on the server');
        }
        await until(() => server.cancellations === 15, 'each cut call told');
        await untilAsync(
          async () => (await server.openConnections()) <= open + 1,
          'answers let go',
        );
        expect((await clients.call(one, 'echo', { v: 'on' }, limits)).content).toEqual([
          { type: 'text', text: 'on' },
        ]);
        // The SDK resumes a stream a second after it broke off (its reconnection delay).
        await new Promise((r) => setTimeout(r, 'resumable' in options ? 1500 : 100));
        expect(server.resumptions).toBe(0);
        expect(await server.openConnections()).toBeLessThanOrEqual(open + 1);
        expect(warnings.map(String)).toEqual([]);
      } finally {
        process.off('warning', onWarning);
        await server.stop();
      }
    },
  );
});
