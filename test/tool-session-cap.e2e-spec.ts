import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { postTools, smsTool, writeToolsFile } from './support/tools-file.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';

const CAPPED =
  'Error: tool request failed: not run: this tool runs at most 2 times in a conversation, and has run that often in this one';

/**
 * A tool's `max_calls_per_session`: a tool that acts (a text message, a refund) runs at most so
 * many times in one conversation, however the model is talked into calling it again.
 */
describe('tools that run at most so many times in a conversation', () => {
  /** The statuses the fax backend answers with, in turn (200 once they are used up). */
  const faxStatuses: number[] = [];
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      SESSION_RESUME_SECS: '60',
      LLM_TOOLS_FILE: writeToolsFile([
        smsTool(base, { max_calls_per_session: 2 }),
        { name: 'send_fax', url: `${base}/fax`, method: 'POST', max_calls_per_session: 1 },
        // Nothing listens there: every connection is refused.
        {
          name: 'page_oncall',
          url: 'http://127.0.0.1:1/page',
          method: 'POST',
          max_calls_per_session: 1,
        },
        {
          name: 'refund',
          url: `${base}/refund`,
          method: 'POST',
          confirm: true,
          max_calls_per_session: 1,
        },
        {
          type: 'mcp',
          name: 'mcp_page',
          url: 'http://127.0.0.1:1/mcp',
          description: 'Pages the engineer on call',
          parameters: { type: 'object', properties: {} },
          max_calls_per_session: 1,
        },
      ]),
    }),
    (req, res) => {
      res.statusCode = req.path === '/fax' ? (faxStatuses.shift() ?? 200) : 200;
      res.end(res.statusCode === 200 ? 'ok' : 'no');
    },
  );
  const client = useClientPerTest(rig);
  const sent = () => rig.tools.requests.filter((r) => r.path === '/sms').length;

  /** A turn in which the model calls send_sms with `args`; what it read of the call. */
  async function sms(ws: WsClient, args: Record<string, unknown>, n: number) {
    rig.llm.enqueue(
      sseStructuredCalls([
        { id: `call_${n}`, name: 'send_sms', arguments: { text: 'Hi', ...args } },
      ]),
      sseText(['Done.']),
    );
    await ws.turn('Text my friend.');
    return rig.llm.requests.at(-1)!.body.messages.at(-1).content as string;
  }

  it('runs the first calls, refuses the next ones, and counts on in a resumed session', async () => {
    const { ws } = client;
    // A call refused for its arguments is not counted.
    expect(await sms(ws, {}, 1)).toMatch(/^Error: tool request failed: .*to/);
    expect(await sms(ws, { to: '+15550001' }, 2)).toBe('ok');
    expect(await sms(ws, { to: '+15550002' }, 3)).toBe('ok');
    expect(await sms(ws, { to: '+15550003' }, 4)).toBe(CAPPED);
    expect(sent()).toBe(2);
    const token = ws.messages[0]!.resume_token as string;
    ws.close();
    await ws.closed;
    const again = await WsClient.connect(`${rig.engine.wsUrl}?resume=${token}`);
    try {
      expect(await sms(again, { to: '+15550004' }, 5)).toBe(CAPPED);
      expect(sent()).toBe(2);
    } finally {
      again.close();
    }
  });

  it('does not count a call the backend did nothing of: refused (4xx), or never reached', async () => {
    const { ws } = client;
    /** What the model read of a call of `name`. */
    const call = async (name: string, n: number) => {
      rig.llm.enqueue(
        sseStructuredCalls([{ id: `call_${n}`, name, arguments: {} }]),
        sseText(['Done.']),
      );
      await ws.turn('Send it.');
      return rig.llm.requests.at(-1)!.body.messages.at(-1).content as string;
    };
    const capped = CAPPED.replace('2 times', '1 time');
    faxStatuses.push(422, 500);
    expect(await call('send_fax', 1)).toBe('Error: HTTP 422 Unprocessable Entity — no');
    // A 5xx may have done it: counted.
    expect(await call('send_fax', 2)).toBe('Error: HTTP 500 Internal Server Error — no');
    expect(await call('send_fax', 3)).toBe(capped);
    expect(await call('page_oncall', 4)).toMatch(/^Error: tool request failed: .*ECONNREFUSED/);
    expect(await call('page_oncall', 5)).toMatch(/^Error: tool request failed: .*ECONNREFUSED/);
    expect(await call('mcp_page', 6)).toMatch(/^Error: tool request failed: .*ECONNREFUSED/);
    expect(await call('mcp_page', 7)).toMatch(/^Error: tool request failed: .*ECONNREFUSED/);
  });

  it('does not ask the user to approve a call its limit would refuse', async () => {
    const { ws } = client;
    const refund = (n: number) => {
      rig.llm.enqueue(
        sseStructuredCalls([{ id: `call_${n}`, name: 'refund', arguments: {} }]),
        sseText(['Done.']),
      );
      return ws.messages.length;
    };
    let from = refund(1);
    ws.send({ type: 'user_text', text: 'Refund me.' });
    await ws.waitFor((m) => m.type === 'tool_confirm', from);
    ws.send({ type: 'tool_confirm', id: 'call_1', approved: true });
    await ws.waitFor((m) => m.type === 'assistant_end', from);
    from = refund(2);
    await ws.turn('Refund me again.');
    expect(ws.messages.slice(from).some((m) => m.type === 'tool_confirm')).toBe(false);
    expect(rig.llm.requests.at(-1)!.body.messages.at(-1).content).toBe(
      CAPPED.replace('2 times', '1 time'),
    );
    expect(rig.tools.requests.filter((r) => r.path === '/refund')).toHaveLength(1);
  });

  it('counts each conversation on its own', async () => {
    expect(await sms(client.ws, { to: '+15550001' }, 1)).toBe('ok');
    expect(sent()).toBe(1);
  });

  it('refuses a limit out of range, naming the tool and the field', async () => {
    const reply = await postTools(rig.engine.httpUrl, [
      { name: 'refund', url: 'http://127.0.0.1:9/refund', max_calls_per_session: 0 },
    ]);
    expect(reply.status).toBe(400);
    expect(await reply.text()).toContain(
      "tool #0 'refund': field 'max_calls_per_session' is invalid: expected an integer from 1 to 1000",
    );
  });
});
