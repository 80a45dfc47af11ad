import { callOnce, useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/**
 * A tool's `cache_secs`: the same request within that time is answered with the result the
 * model read the first time, without sending it, in every session of the process.
 */
describe('tool results kept for cache_secs', () => {
  let answers = 0;
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_TOOL_RETRIES: '0',
      LLM_TOOLS_FILE: writeToolsFile([
        {
          name: 'store_hours',
          url: `${base}/hours/{store}`,
          method: 'GET',
          cache_secs: 2,
          parameters: { type: 'object', properties: { store: { type: 'string' } } },
        },
        { name: 'flaky', url: `${base}/flaky`, method: 'GET', cache_secs: 60 },
        {
          name: 'my_orders',
          url: `${base}/orders`,
          method: 'GET',
          headers: { 'X-Customer': '${session.customer_id}' },
          cache_secs: 60,
        },
        { name: 'uncached', url: `${base}/uncached`, method: 'GET' },
      ]),
    }),
    (req, res) => {
      answers++;
      if (req.path === '/flaky' && answers % 2 === 1) return void res.writeHead(500).end('oops');
      res.end(`${req.path} #${answers} for ${String(req.headers['x-customer'] ?? 'anyone')}`);
    },
  );
  const client = useClientPerTest(rig);
  beforeEach(() => (answers = 0));

  /** One turn of `ws` calling `name`: what the model read, and the tool_result event. */
  const call = (name: string, args: Record<string, unknown> = {}, ws = client.ws) =>
    callOnce(rig, ws, name, args);
  const sent = (path: string) => rig.tools.requests.filter((r) => r.path.startsWith(path)).length;

  it('answers the same request from the first result, in any session, for cache_secs', async () => {
    const first = await call('store_hours', { store: 'rome' });
    expect(first.read).toBe('/hours/rome #1 for anyone');
    expect(first.result).not.toHaveProperty('cached');
    const other = await WsClient.connect(rig.engine.wsUrl);
    try {
      const again = await call('store_hours', { store: 'rome' }, other);
      expect(again.read).toBe('/hours/rome #1 for anyone');
      expect(again.result).toMatchObject({ ok: true, cached: true });
    } finally {
      other.close();
    }
    expect(sent('/hours')).toBe(1);
    // Other arguments are another request.
    expect((await call('store_hours', { store: 'milan' })).read).toBe('/hours/milan #2 for anyone');
    // An admin trying the same request is answered from the cache too, and told so.
    const tried = await fetch(`${rig.engine.httpUrl}/api/tools/store_hours/call`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ arguments: { store: 'milan' } }),
    });
    expect(await tried.json()).toEqual({
      ok: true,
      result: '/hours/milan #2 for anyone',
      ms: expect.any(Number),
      cached: true,
    });
    // After cache_secs, the request is sent again. (Two seconds: on a busy machine, a second
    // session's turn took longer than 0.6 s to make the same request.)
    await new Promise((r) => setTimeout(r, 2100));
    expect((await call('store_hours', { store: 'rome' })).read).toBe('/hours/rome #3 for anyone');
    const metrics = await (await fetch(`${rig.engine.httpUrl}/metrics`)).text();
    expect(metrics).toMatch(/agent_engine_tool_cache_hits_total\{tool="store_hours"\} 2\b/);
  });

  it('never keeps an error, and never calls a tool without cache_secs from one', async () => {
    expect((await call('flaky')).read).toBe('Error: HTTP 500 Internal Server Error — oops');
    expect((await call('flaky')).read).toBe('/flaky #2 for anyone');
    expect((await call('flaky')).read).toBe('/flaky #2 for anyone');
    expect(sent('/flaky')).toBe(2);
    await call('uncached');
    await call('uncached');
    expect(sent('/uncached')).toBe(2);
  });

  it('keeps the results of different callers apart (session variables in headers)', async () => {
    const as = async (customer: string) => {
      const ws = await WsClient.connect(rig.engine.wsUrl);
      const from = ws.messages.length;
      ws.send({ type: 'session.update', variables: { customer_id: customer } });
      await ws.waitFor((m) => m.type === 'session.updated', from);
      try {
        return (await call('my_orders', {}, ws)).read;
      } finally {
        ws.close();
      }
    };
    expect(await as('C-1')).toBe('/orders #1 for C-1');
    expect(await as('C-2')).toBe('/orders #2 for C-2');
    expect(await as('C-1')).toBe('/orders #1 for C-1');
    expect(sent('/orders')).toBe(2);
  });
});
