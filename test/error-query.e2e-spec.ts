import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient, type Msg } from './support/ws-client.js';

/**
 * A tool's `error_query` finds the error a service answers with HTTP 200 (GraphQL's `errors`,
 * JSON-RPC's `error`, `{"success": false}`): the call failed, as for an HTTP error.
 */
describe('errors answered with HTTP 200, found by error_query', () => {
  let paid = 0;
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        {
          name: 'find_order',
          url: `${base}/graphql`,
          method: 'POST',
          safe: true,
          cache_secs: 60,
          error_query: 'errors[0].message',
          response_query: 'data.order',
        },
        {
          name: 'pay',
          url: `${base}/rpc`,
          method: 'POST',
          max_calls_per_session: 1,
          error_query: 'error',
        },
        {
          name: 'store_hours',
          url: `${base}/legacy/{store}`,
          method: 'GET',
          error_query: 'success == `false`',
        },
      ]),
    }),
    (req, res) => {
      res.setHeader('Content-Type', 'application/json');
      if (req.path === '/graphql') {
        const { id } = JSON.parse(req.body) as { id: number };
        return void res.end(
          JSON.stringify(
            id === 42
              ? { data: null, errors: [{ message: 'Order 42 not found', path: ['order'] }] }
              : { data: { order: { id, status: 'shipped' } }, errors: [] },
          ),
        );
      }
      if (req.path === '/rpc')
        return void res.end(
          JSON.stringify(
            paid++ === 0
              ? { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'insufficient funds' } }
              : { jsonrpc: '2.0', id: 1, result: 'paid' },
          ),
        );
      if (req.path === '/legacy/closed')
        return void res.end(JSON.stringify({ success: false, reason: 'store closed' }));
      res.setHeader('Content-Type', 'text/plain');
      res.end('Open 9 to 5.');
    },
  );

  /** One turn whose model calls `name` with `args`: what the model read, and the turn's result. */
  async function call(
    ws: WsClient,
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ read: string; result: Msg }> {
    rig.llm.reset();
    rig.llm.enqueue(sseStructuredCalls([{ id: 'call_1', name, arguments: args }]), sseText(['ok']));
    const msgs = await ws.turn('go');
    // The session's last tool message: earlier turns' are in its history too.
    const read = rig.llm.requests[1]!.body.messages.findLast((m: any) => m.role === 'tool').content;
    return { read, result: msgs.find((m) => m.type === 'tool_result')! };
  }

  let ws: WsClient;
  beforeEach(async () => {
    rig.tools.requests.length = 0;
    ws = await WsClient.connect(rig.engine.wsUrl);
  });
  afterEach(() => ws.close());

  it("tells the model a GraphQL error as a failed call, keeps no such answer, and picks a good one's data", async () => {
    const missing = await call(ws, 'find_order', { id: 42 });
    expect(missing.read).toBe('Error: HTTP 200 OK — Order 42 not found');
    expect(missing.result).toMatchObject({ name: 'find_order', ok: false });
    // Not kept (cache_secs): asked again, it is sent again.
    expect((await call(ws, 'find_order', { id: 42 })).result).toMatchObject({ ok: false });
    expect(rig.tools.requests.filter((r) => r.path === '/graphql')).toHaveLength(2);
    // An answer with no error (an empty list of them): its data picked, and kept.
    const found = await call(ws, 'find_order', { id: 7 });
    expect(found.read).toBe('{"id":7,"status":"shipped"}');
    expect(found.result).toMatchObject({ ok: true });
    expect((await call(ws, 'find_order', { id: 7 })).result).toMatchObject({ cached: true });
    expect(rig.tools.requests.filter((r) => r.path === '/graphql')).toHaveLength(3);
  });

  it("does not count a JSON-RPC error against the tool's calls in a conversation", async () => {
    const refused = await call(ws, 'pay', { amount: 5 });
    expect(refused.read).toBe(
      'Error: HTTP 200 OK — {"code":-32000,"message":"insufficient funds"}',
    );
    expect(refused.result).toMatchObject({ ok: false });
    // The payment that went through is the conversation's one call of `pay`.
    expect((await call(ws, 'pay', { amount: 5 })).read).toBe(
      '{"jsonrpc":"2.0","id":1,"result":"paid"}',
    );
    expect((await call(ws, 'pay', { amount: 5 })).read).toMatch(
      /^Error: tool request failed: not run: this tool runs at most 1 time in a conversation/,
    );
    expect(rig.tools.requests.filter((r) => r.path === '/rpc')).toHaveLength(2);
  });

  it('takes a condition that holds as the whole body an error, and lets a body that is not JSON stand', async () => {
    const closed = await call(ws, 'store_hours', { store: 'closed' });
    expect(closed.read).toBe('Error: HTTP 200 OK — {"success":false,"reason":"store closed"}');
    expect(closed.result).toMatchObject({ ok: false });
    const open = await call(ws, 'store_hours', { store: 'rome' });
    expect(open.read).toBe('Open 9 to 5.');
    expect(open.result).toMatchObject({ ok: true });
  });
});
