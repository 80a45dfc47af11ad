import { startError } from './support/engine.js';
import { samples } from './support/prometheus.js';
import { sseCall, sseText } from './support/fake-llm.js';
import { postTools, refusedTools, writeToolsFile } from './support/tools-file.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';

const BILLING = 'You are the billing assistant: invoices, payments and refunds only.';

/** The front desk's tools: weather, and a handoff to billing, which has its own. */
const toolsAt = (base: string) => [
  { name: 'get_weather', url: `${base}/weather/{city}`, method: 'GET' },
  { name: 'get_invoice', url: `${base}/invoices/{id}`, method: 'GET' },
  {
    type: 'handoff',
    name: 'to_billing',
    agent: 'billing',
    description: 'Hand the user to billing for invoices, payments and refunds.',
    instructions: BILLING,
    tools: ['get_invoice', 'to_front_desk'],
  },
  {
    type: 'handoff',
    name: 'to_front_desk',
    description: 'Hand the user back to the front desk for anything but billing.',
  },
];

/**
 * `"type": "handoff"`: the model hands the conversation to another assistant — its instructions
 * in the system message, only its tools offered — for the rest of the turn and the turns after.
 */
describe('the model hands the conversation to another assistant (a handoff tool)', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_SYSTEM_PROMPT: 'You are the ACME voice agent.',
    LLM_CLOCK: 'off',
    LLM_TOOLS_FILE: writeToolsFile(toolsAt(base)),
    SESSION_RESUME_SECS: '60',
    ADMIN_API_KEY: 'admin-key',
  }));
  const client = useClientPerTest(rig);
  const toolNames = (i: number) => rig.llm.offered(i);
  const systemOf = (i: number) => rig.llm.requests[i]!.body.messages[0].content as string;

  it('goes on as the new assistant in the same turn and the next, and back', async () => {
    const { ws } = client;
    rig.llm.enqueue(
      sseCall('call_1', 'to_billing'),
      sseCall('call_2', 'get_invoice', { id: 'INV-7' }),
      sseText(['Invoice INV-7 is paid.']),
    );
    const turn = await ws.turn('Is my invoice INV-7 paid?');
    expect(turn.map((m) => m.type)).toEqual([
      'tool_call',
      'handoff',
      'tool_result',
      'tool_call',
      'tool_result',
      'assistant_delta',
      'assistant_end',
    ]);
    expect(turn[1]).toEqual({ type: 'handoff', agent: 'billing' });
    expect(toolNames(0)).toEqual(['get_weather', 'get_invoice', 'to_billing', 'to_front_desk']);
    expect(systemOf(0)).toBe('You are the ACME voice agent.');
    // The next request of the turn is billing's: its instructions, its tools.
    expect(toolNames(1)).toEqual(['get_invoice', 'to_front_desk']);
    expect(systemOf(1)).toBe(`You are the ACME voice agent.\n\n${BILLING}`);
    expect(rig.llm.requests[1]!.body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content:
        "You are now the billing assistant: follow its instructions in the system message, with the tools you now have, and answer the user's request.",
    });
    expect(rig.tools.requests.map((r) => r.path)).toEqual(['/invoices/INV-7']);

    // The next turn too; a tool billing lacks is unknown to it.
    rig.llm.enqueue(sseCall('call_3', 'get_weather', { city: 'Rome' }), sseText(['I cannot.']));
    await ws.turn('And the weather in Rome?');
    expect(toolNames(3)).toEqual(['get_invoice', 'to_front_desk']);
    expect(rig.llm.requests[4]!.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: "Error: unknown tool 'get_weather'",
    });

    // Back to the front desk: the engine's own prompt, every tool.
    rig.llm.enqueue(sseCall('call_4', 'to_front_desk'), sseText(['Sure.']));
    const back = await ws.turn('Anything else, then.');
    expect(back.find((m) => m.type === 'handoff')).toEqual({
      type: 'handoff',
      agent: 'front desk',
    });
    expect(systemOf(6)).toBe('You are the ACME voice agent.');
    expect(toolNames(6)).toEqual(['get_weather', 'get_invoice', 'to_billing', 'to_front_desk']);
    const admin = { headers: { Authorization: 'Bearer admin-key' } };
    const metrics = samples(await (await fetch(`${rig.engine.httpUrl}/metrics`, admin)).text());
    expect(metrics.get('agent_engine_handoffs_total{agent="billing"}')).toBe(1);
    expect(metrics.get('agent_engine_handoffs_total{agent="front desk"}')).toBe(1);
  });

  it('keeps the assistant for a session resumed, within its own tool selection', async () => {
    const { ws } = client;
    ws.send({ type: 'session.update', tools: ['get_weather', 'to_billing', 'get_invoice'] });
    await ws.waitFor((m) => m.type === 'session.updated');
    rig.llm.enqueue(sseCall('call_1', 'to_billing'), sseText(['Billing here.']));
    await ws.turn('Billing, please.');
    // Billing's tools that the session's own selection keeps.
    expect(toolNames(1)).toEqual(['get_invoice']);
    const admin = { headers: { Authorization: 'Bearer admin-key' } };
    const listed = (await (await fetch(`${rig.engine.httpUrl}/api/sessions`, admin)).json()) as {
      sessions: { agent?: string }[];
    };
    expect(listed.sessions.map((s) => s.agent)).toEqual(['billing']);
    const token = ws.messages[0]!.resume_token as string;
    ws.close();
    await ws.closed;
    const again = await WsClient.connect(`${rig.engine.wsUrl}?resume=${token}`);
    try {
      // The client learns who holds the session it resumed.
      expect(again.messages[0]).toMatchObject({ type: 'session', resumed: true, agent: 'billing' });
      rig.llm.enqueue(sseText(['Still billing.']));
      await again.turn('Are you billing?');
      expect(systemOf(2)).toBe(`You are the ACME voice agent.\n\n${BILLING}`);
      expect(toolNames(2)).toEqual(['get_invoice']);
    } finally {
      again.close();
    }
  });

  it('starts a session as an assistant a client names (session.update agent), and back', async () => {
    const { ws } = client;
    ws.send({ type: 'session.update', agent: 'billing' });
    const updated = await ws.waitFor((m) => m.type === 'session.updated');
    expect(updated.agent).toBe('billing');
    rig.llm.enqueue(sseText(['Billing here.']));
    await ws.turn('Is my invoice paid?');
    expect(systemOf(0)).toBe(`You are the ACME voice agent.\n\n${BILLING}`);
    expect(toolNames(0)).toEqual(['get_invoice', 'to_front_desk']);
    // An assistant the set lacks is refused, nothing changed, the connection open.
    const update = async (fields: Record<string, unknown>, type = 'session.updated') => {
      const from = ws.messages.length;
      ws.send({ type: 'session.update', ...fields });
      return ws.waitFor((m) => m.type === type, from);
    };
    const refused = await update({ agent: 'sales', language: 'it' }, 'error');
    expect(refused.message).toBe(
      'unknown assistant "sales" in "agent": the assistants are billing, front desk; nothing was changed',
    );
    // By its handoff tool's name too; null: the engine's own assistant again.
    expect((await update({ agent: 'to_front_desk' })).agent).toBe('front desk');
    const own = await update({ agent: null });
    expect([own.agent, own.settings.language]).toEqual([null, 'en']);
    rig.llm.enqueue(sseText(['Hello.']));
    await ws.turn('Hello?');
    expect(systemOf(1)).toBe('You are the ACME voice agent.');
    expect(toolNames(1)).toEqual(['get_weather', 'get_invoice', 'to_billing', 'to_front_desk']);
  });

  it('is given to an assistant by an administrator (POST /api/sessions/{id}/agent)', async () => {
    const { ws } = client;
    const id = ws.messages[0]!.session_id as string;
    const assign = (session: string, body: unknown) =>
      fetch(`${rig.engine.httpUrl}/api/sessions/${session}/agent`, {
        method: 'POST',
        headers: { Authorization: 'Bearer admin-key', 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const res = await assign(id, { agent: 'billing' });
    expect([res.status, await res.json()]).toEqual([
      200,
      { ok: true, session_id: id, agent: 'billing' },
    ]);
    // Its client is told, and the next request is billing's.
    expect((await ws.waitFor((m) => m.type === 'session.updated')).agent).toBe('billing');
    rig.llm.enqueue(sseText(['Billing here.']));
    await ws.turn('Hello?');
    expect(systemOf(0)).toBe(`You are the ACME voice agent.\n\n${BILLING}`);
    const refusal = async (session: string, body: unknown) => {
      const answer = await assign(session, body);
      return [answer.status, ((await answer.json()) as { message: string }).message];
    };
    expect(await refusal(id, { agent: 'sales' })).toEqual([
      400,
      'unknown assistant "sales" in "agent": the assistants are billing, front desk',
    ]);
    expect(await refusal(id, { agent: 7 })).toEqual([
      400,
      '"agent" must be the name of an assistant, or null for the engine\'s own',
    ]);
    expect(await refusal('no-such-session', { agent: null })).toEqual([
      404,
      'no session "no-such-session" is open on this engine',
    ]);
  });

  it('gives a session the assistant as its handoff tool is defined now', async () => {
    const { ws } = client;
    rig.llm.enqueue(sseCall('call_1', 'to_billing'), sseText(['Billing here.']));
    await ws.turn('Billing, please.');
    const tools = toolsAt(rig.toolsUrl);
    Object.assign(tools[2]!, { instructions: 'You are billing, now with refunds.' });
    expect((await postTools(rig.engine.httpUrl, tools, 'admin-key')).status).toBe(200);
    try {
      rig.llm.enqueue(sseText(['Yes.']));
      await ws.turn('Refunds too?');
      expect(systemOf(2)).toBe(
        'You are the ACME voice agent.\n\nYou are billing, now with refunds.',
      );
    } finally {
      await postTools(rig.engine.httpUrl, toolsAt(rig.toolsUrl), 'admin-key');
    }
  });

  it('refuses a handoff naming a tool the set lacks, naming the tool and the field', async () => {
    const tools = toolsAt('http://127.0.0.1:9');
    (tools[2] as { tools: string[] }).tools = ['get_invoice', 'get_invoices'];
    expect(await refusedTools(rig.engine.httpUrl, tools, 'admin-key')).toBe(
      "request body: tool #2 'to_billing': field 'tools' names 'get_invoices', which the set has no tool of: expected names of the set's tools (get_weather, get_invoice, to_billing, to_front_desk)",
    );
  });

  it('stops start-up on a handoff whose instructions are not text', async () => {
    const file = writeToolsFile([{ type: 'handoff', name: 'to_x', instructions: 5 }]);
    expect(await startError({ LLM_MODEL: 'm', LLM_TOOLS_FILE: file })).toContain(
      "tool #0 'to_x': field 'instructions' is invalid: expected a string of at most 20000 characters",
    );
  });
});

/** Code tools read the assistant that holds the session as `context.agent_name`. */
describe('a code tool after a handoff', () => {
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    AGENT_NAME: 'front desk',
    LLM_TOOLS_FILE: writeToolsFile([
      {
        type: 'python',
        code: 'def who_is_here() -> str:\n    """Who holds the conversation."""\n    return context.agent_name',
      },
      { type: 'handoff', name: 'to_billing' },
    ]),
  }));
  const client = useClientPerTest(rig);

  it("gives the handed-to assistant's name, from the call after the handoff on", async () => {
    rig.llm.enqueue(
      sseCall('call_1', 'who_is_here'),
      sseCall('call_2', 'to_billing'),
      sseCall('call_3', 'who_is_here'),
      sseText(['Billing.']),
    );
    await client.ws.turn('Who are you?', 30_000);
    const results = rig.llm.requests.map((r) => r.body.messages.at(-1));
    expect([results[1], results[3]]).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: '"front desk"' },
      { role: 'tool', tool_call_id: 'call_3', content: '"billing"' },
    ]);
  });
});
