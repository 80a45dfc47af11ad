import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { samples } from './support/prometheus.js';
import { until } from './support/waiting.js';
import { writeToolsFile } from './support/tools-file.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';

const TRANSFER = {
  type: 'transfer_call',
  name: 'transfer_to_person',
  destinations: { sales: '+15550100', support: 'sip:support@pbx.example.com' },
};

/**
 * `"type": "transfer_call"`: the model hands the caller over to a person; once its turn has been
 * given, the client gets a `transfer` event to act on and the session closes (4005).
 */
describe('the model transfers the call (a transfer_call tool)', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([TRANSFER]),
    SESSION_WEBHOOK_URL: `${base}/reports`,
  }));
  const client = useClientPerTest(rig);

  it('tells the client where to, after the turn, and closes the session', async () => {
    const { ws } = client;
    rig.llm.enqueue(
      sseStructuredCalls([
        { id: 'call_1', name: 'transfer_to_person', arguments: { destination: 'support' } },
      ]),
      sseText(['I am transferring you to support.']),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'I want to talk to a person.' });
    expect(await ws.closed).toBe(4005);
    expect(ws.messages.slice(from).map((m) => m.type)).toEqual([
      'tool_call',
      'tool_result',
      'assistant_delta',
      'assistant_end',
      'transfer',
    ]);
    expect(ws.messages.at(-1)).toEqual({ type: 'transfer', to: 'sip:support@pbx.example.com' });
    // The model chooses among the destinations by name, never seeing the numbers.
    expect(rig.llm.requests[0]!.body.tools[0].function.parameters).toEqual({
      type: 'object',
      properties: {
        destination: {
          type: 'string',
          enum: ['sales', 'support'],
          description: 'Who to transfer the caller to',
        },
      },
      required: ['destination'],
    });
    expect(JSON.stringify(rig.llm.requests.map((r) => r.body))).not.toContain('+15550100');
    const metrics = samples(await (await fetch(`${rig.engine.httpUrl}/metrics`)).text());
    expect(metrics.get('agent_engine_sessions_ended_total{reason="transferred"}')).toBe(1);
    // The end-of-session report says so, and where to (a CRM's record of the call).
    await until(() => rig.tools.requests.some((r) => r.path === '/reports'), 'the report');
    const report = JSON.parse(rig.tools.requests.find((r) => r.path === '/reports')!.body);
    expect(report).toMatchObject({
      close_code: 4005,
      end_reason: 'transferred',
      transferred_to: 'sip:support@pbx.example.com',
      // Kept for resuming: a call no one answered comes back to the conversation.
      resumable: true,
    });
  });

  it('lets the model choose again after a destination it does not have', async () => {
    const { ws } = client;
    rig.llm.enqueue(
      sseStructuredCalls([
        { id: 'call_1', name: 'transfer_to_person', arguments: { destination: 'billing' } },
      ]),
      sseText(['I cannot transfer you to billing.']),
    );
    const turn = await ws.turn('Billing, please.');
    expect(turn.find((m) => m.type === 'tool_result')).toMatchObject({ ok: false });
    expect(rig.llm.requests[1]!.body.messages.at(-1).content).toBe(
      'Error: tool request failed: invalid arguments: arguments/destination must be equal to one of the allowed values',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ws.closeCode).toBeUndefined();
  });

  it('refuses a definition with no destination, or a number not in E.164 form', async () => {
    for (const [entry, message] of [
      [{ type: 'transfer_call', name: 't' }, /#0 't': field 'to' is required: give exactly one/],
      [
        { type: 'transfer_call', name: 't', to: '555-0100' },
        /#0 't': field 'to' is invalid: expected a phone number in E.164 form/,
      ],
    ] as const) {
      const res = await fetch(`${rig.engine.httpUrl}/api/tools`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify([entry]),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(message);
    }
  });
});
