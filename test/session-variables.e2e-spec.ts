import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import type { WsClient } from './support/ws-client.js';

/**
 * Session variables: values the client gives the session's tools (`session.update`'s
 * `variables`, `${session.NAME}` in HTTP tools, `context.variables` in code tools), which the
 * model never sees and cannot change.
 */
describe('session variables', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    CODE_TOOLS_WORKERS: '1',
    LLM_TOOLS_FILE: writeToolsFile([
      {
        name: 'orders',
        description: 'The caller’s orders',
        url: `${base}/customers/\${session.customer_id}/orders`,
        method: 'GET',
        headers: { 'X-User-Token': '${session.user_token}' },
      },
      {
        type: 'python',
        code: 'def whoami() -> str:\n    """Who the caller is."""\n    return "customer " + context.variables.get("customer_id", "unknown")',
      },
    ]),
  }));
  const client = useClientPerTest(rig);

  async function declare(ws: WsClient, variables: Record<string, string> | null) {
    const from = ws.messages.length;
    ws.send({ type: 'session.update', variables });
    return ws.waitFor((m) => m.type === 'session.updated' || m.type === 'error', from);
  }
  /** What the model reads for one call of `name` with `args`. */
  async function call(name: string, args: Record<string, unknown> = {}) {
    rig.llm.enqueue(sseStructuredCalls([{ id: 'call_1', name, arguments: args }]), sseText(['ok']));
    await client.ws.turn('go', 20_000);
    const request = rig.llm.requests.at(-1)!.body;
    return request.messages.findLast((m: any) => m.role === 'tool').content as string;
  }

  it('fills HTTP tools from the session, whatever the model sends; the model never sees them', async () => {
    const updated = await declare(client.ws, { customer_id: 'C-42', user_token: 'tok-secret-1' });
    expect(updated.settings.variables).toEqual({ customer_id: 'C-42', user_token: 'tok-secret-1' });
    await call('orders', { customer_id: 'C-1' });
    const [req] = rig.tools.requests;
    expect(req!.path).toBe('/customers/C-42/orders');
    expect(req!.query).toEqual({ customer_id: 'C-1' }); // an argument, not the session's value
    expect(req!.headers['x-user-token']).toBe('tok-secret-1');
    const sent = JSON.stringify(rig.llm.requests.map((r) => r.body));
    expect(sent).not.toContain('tok-secret-1');
    expect(sent).not.toContain('C-42');
  });

  it('gives code tools context.variables', async () => {
    await declare(client.ws, { customer_id: 'C-7' });
    expect(await call('whoami')).toBe('"customer C-7"'); // a code tool's str, as JSON
  }, 30_000);

  it('refuses a call when the session lacks a variable; null clears them', async () => {
    await declare(client.ws, { customer_id: 'C-42' });
    expect((await declare(client.ws, null)).settings.variables).toEqual({});
    expect(await call('orders')).toBe(
      "Error: tool request failed: the session has no variable 'customer_id' for ${session.customer_id} (the client sets it with session.update)",
    );
    expect(rig.tools.requests).toHaveLength(0);
  });

  it('refuses bad variables with a clear error and changes nothing', async () => {
    await declare(client.ws, { customer_id: 'C-42', user_token: 't' });
    const error = await declare(client.ws, { customer_id: 'C-1\r\nX-Evil: 1' });
    expect(error).toMatchObject({
      type: 'error',
      code: 'invalid_message',
      message:
        "variable 'customer_id' must be a string of at most 4000 characters, without line breaks; nothing was changed",
    });
    expect(await call('orders')).toBe('ok');
    expect(rig.tools.requests[0]!.path).toBe('/customers/C-42/orders');
  });
});
