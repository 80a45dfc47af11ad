import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { callOnce, toolRead, useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/**
 * A tool whose service is down stops being called for a while (LLM_TOOL_BREAKER_FAILURES,
 * LLM_TOOL_BREAKER_COOLDOWN_SECS): the caller hears at once that it is unavailable instead of
 * waiting out a timeout every turn, and every session of the process is spared.
 */
describe('tools whose service is down', () => {
  /** Per path: the service answers 503 while true. */
  const down = new Map<string, boolean>();
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_TOOL_RETRIES: '0',
      LLM_TOOL_BREAKER_FAILURES: '2',
      LLM_TOOL_BREAKER_COOLDOWN_SECS: '1',
      LLM_TOOLS_FILE: writeToolsFile([
        { name: 'orders', url: `${base}/orders`, method: 'GET' },
        { name: 'slow', url: `${base}/slow`, method: 'GET', timeout_secs: 0.2 },
        { name: 'picky', url: `${base}/picky`, method: 'GET' },
        { name: 'weather', url: `${base}/weather`, method: 'GET' },
        { name: 'refund', url: `${base}/refund`, method: 'POST', confirm: true },
      ]),
    }),
    (req, res) => {
      if (req.path === '/slow') return void setTimeout(() => res.end('too late'), 500);
      if (req.path === '/picky') return void res.writeHead(400).end('bad order number');
      if (down.get(req.path)) return void res.writeHead(503).end('maintenance');
      res.end(`${req.path.slice(1)}: fine`);
    },
  );
  const client = useClientPerTest(rig);
  beforeEach(() => down.clear());

  /** One turn of `ws` in which the model calls `name`; returns what the model read of it. */
  const call = async (name: string, ws: WsClient = client.ws) =>
    (await callOnce(rig, ws, name)).read;
  const sent = (path: string) => rig.tools.requests.filter((r) => r.path === path).length;
  const metrics = async () => (await fetch(`${rig.engine.httpUrl}/metrics`)).text();

  it('stops sending after failures in a row, in every session, and tries again after the cool-down', async () => {
    down.set('/orders', true);
    expect(await call('orders')).toBe('Error: HTTP 503 Service Unavailable — maintenance');
    expect(await call('orders')).toBe('Error: HTTP 503 Service Unavailable — maintenance');
    expect(sent('/orders')).toBe(2);
    // Open: another session's call is not sent, and the model can say so at once.
    const other = await WsClient.connect(rig.engine.wsUrl);
    try {
      expect(await call('orders', other)).toMatch(
        /^Error: tool request failed: not sent: the service is unavailable \(its last 2 calls failed\); it is tried again in 1s$/,
      );
    } finally {
      other.close();
    }
    expect(sent('/orders')).toBe(2);
    expect(await metrics()).toMatch(/agent_engine_tool_circuit_open\{tool="orders"\} 1\b/);
    const health = async () => (await (await fetch(`${rig.engine.httpUrl}/health`)).json()) as any;
    expect((await health()).tools.unavailable).toEqual(['orders']);
    // Other tools are called as usual.
    expect(await call('weather')).toBe('weather: fine');
    // After the cool-down, a call tries the service again; it is back: calls are sent again.
    await new Promise((r) => setTimeout(r, 1100));
    down.set('/orders', false);
    expect(await call('orders')).toBe('orders: fine');
    expect(await call('orders')).toBe('orders: fine');
    expect(sent('/orders')).toBe(4);
    expect(await metrics()).toMatch(/agent_engine_tool_circuit_open\{tool="orders"\} 0\b/);
    expect((await health()).tools.unavailable).toEqual([]);
  });

  it('opens again at once when the trial after the cool-down fails', async () => {
    down.set('/weather', true);
    await call('weather');
    await call('weather');
    expect(await call('weather')).toMatch(/not sent: the service is unavailable/);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await call('weather')).toBe('Error: HTTP 503 Service Unavailable — maintenance');
    expect(await call('weather')).toMatch(/not sent: the service is unavailable/);
    expect(sent('/weather')).toBe(3);
    await new Promise((r) => setTimeout(r, 1100));
    down.set('/weather', false);
    expect(await call('weather')).toBe('weather: fine');
  });

  it('counts timeouts as the service down, and answers such as 400 as the service up', async () => {
    expect(await call('slow')).toBe('Error: tool request failed: timed out after 0.2s');
    expect(await call('slow')).toBe('Error: tool request failed: timed out after 0.2s');
    expect(await call('slow')).toMatch(/not sent: the service is unavailable/);
    expect(sent('/slow')).toBe(2);
    for (let i = 0; i < 3; i++)
      expect(await call('picky')).toBe('Error: HTTP 400 Bad Request — bad order number');
    expect(sent('/picky')).toBe(3);
  });

  it('refuses a call that needs approval while its service is down, without asking the user', async () => {
    down.set('/refund', true);
    /** A turn calling `refund`, approved if the user is asked: what the model read, and whether. */
    const approved = async () => {
      rig.llm.reset();
      rig.llm.enqueue(sseStructuredCalls([{ id: 'call_r', name: 'refund', arguments: {} }]));
      rig.llm.enqueue(sseText(['ok']));
      const from = client.ws.messages.length;
      client.ws.send({ type: 'user_text', text: 'refund me' });
      const first = await client.ws.waitFor(
        (m) => m.type === 'tool_confirm' || m.type === 'assistant_end',
        from,
      );
      if (first.type === 'tool_confirm') {
        client.ws.send({ type: 'tool_confirm', id: first.id, approved: true });
        await client.ws.waitFor((m) => m.type === 'assistant_end', from);
      }
      return { read: toolRead(rig.llm), asked: first.type === 'tool_confirm' };
    };
    const failed = 'Error: HTTP 503 Service Unavailable — maintenance';
    expect(await approved()).toEqual({ read: failed, asked: true });
    expect(await approved()).toEqual({ read: failed, asked: true });
    // The caller would approve a call that is then not sent: the model hears why at once.
    expect(await approved()).toEqual({
      read: expect.stringMatching(
        /^Error: tool request failed: not sent: the service is unavailable/,
      ),
      asked: false,
    });
    expect(sent('/refund')).toBe(2);
  });
});
