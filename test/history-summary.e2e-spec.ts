import { samples } from './support/prometheus.js';
import { sseText, type Script } from './support/fake-llm.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { until, untilAsync } from './support/waiting.js';
import { WsClient } from './support/ws-client.js';

const SUMMARY =
  'The user is Ada Rossi, booking ABC-123 for two on 12 March; she asked for a window seat.';

/** A non-streamed completion (the summary request) answering `text`. */
const reply = (text: string): Script => ({
  kind: 'json',
  body: {
    id: 'chatcmpl-summary',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 180, completion_tokens: 25, total_tokens: 205 },
  },
});

/**
 * LLM_HISTORY_SUMMARY: the turns a bounded history drops (LLM_MAX_HISTORY_MESSAGES) are
 * summarised by the model, and the summary goes on in the system message: a long call does not
 * forget who the caller is.
 */
describe('a summary of the turns the history dropped (LLM_HISTORY_SUMMARY)', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_SYSTEM_PROMPT: 'You are the ACME voice agent.',
    LLM_CLOCK: 'off',
    LLM_MAX_HISTORY_MESSAGES: '4',
    LLM_HISTORY_SUMMARY: 'true',
    SESSION_RESUME_SECS: '60',
    ADMIN_API_KEY: 'admin-key',
    // End-of-session reports, to the rig's recording server.
    SESSION_WEBHOOK_URL: `${base}/reports`,
  }));
  const client = useClientPerTest(rig);
  const admin = { headers: { Authorization: 'Bearer admin-key' } };
  const summaries = () => rig.llm.requests.filter((r) => r.body.stream === false);
  const turns = () => rig.llm.requests.filter((r) => r.body.stream === true);
  const metric = async (outcome: string) => {
    const scrape = samples(await (await fetch(`${rig.engine.httpUrl}/metrics`, admin)).text());
    return scrape.get(`agent_engine_history_summaries_total{outcome="${outcome}"}`) ?? 0;
  };
  /** Three turns: the third takes the history past 4 messages, and the first two are dropped. */
  const longCall = async (ws: WsClient, summary: Script) => {
    rig.llm.enqueue(
      sseText(['Welcome, Ada.']),
      sseText(['Booking ABC-123 is for two on 12 March.']),
      sseText(['A window seat it is.']),
      summary,
    );
    await ws.turn('Hello, I am Ada Rossi, my booking is ABC-123.');
    await ws.turn('What does it say?');
    await ws.turn('I would like a window seat.');
    await until(() => summaries().length === 1, 'the summary request');
  };

  it('asks the model for a summary of the dropped turns, and tells it to the next requests', async () => {
    const { ws } = client;
    const before = await metric('made');
    await longCall(ws, reply(SUMMARY));
    const asked = summaries()[0]!.body;
    expect(asked.tools).toBeUndefined();
    expect(asked.max_tokens).toBe(600);
    expect(asked.messages[1].content).toBe(
      'Summary so far:\n(none)\n\nMessages to add to it:\n' +
        'User: Hello, I am Ada Rossi, my booking is ABC-123.\n' +
        'Assistant: Welcome, Ada.\n' +
        'User: What does it say?\n' +
        'Assistant: Booking ABC-123 is for two on 12 March.',
    );
    await untilAsync(async () => (await metric('made')) === before + 1, 'the summary counted');
    rig.llm.enqueue(sseText(['Yes, Ada.']));
    await ws.turn('Do you remember my name?');
    const next = turns().at(-1)!.body.messages;
    expect(next[0]).toEqual({
      role: 'system',
      content: `You are the ACME voice agent.\n\nEarlier in this conversation (its older messages are no longer shown):\n${SUMMARY}`,
    });
    // The history holds the turns kept since: the dropped ones are only in the summary.
    expect(next.slice(1).map((m: { content: string }) => m.content)).toEqual([
      'I would like a window seat.',
      'A window seat it is.',
      'Do you remember my name?',
    ]);
    // The end-of-session report carries the summary beside the history kept.
    ws.close();
    await until(() => rig.tools.requests.some((r) => r.path === '/reports'), 'the report');
    const report = JSON.parse(rig.tools.requests.find((r) => r.path === '/reports')!.body);
    expect(report).toMatchObject({ summary: SUMMARY, turns: 4 });
    // The summary's tokens are the session's too (the turns' fake stream reports none).
    expect(report.usage).toEqual({ prompt_tokens: 180, completion_tokens: 25, total_tokens: 205 });
  });

  it('keeps the summary for a session resumed', async () => {
    const { ws } = client;
    const before = await metric('made');
    await longCall(ws, reply(SUMMARY));
    await untilAsync(async () => (await metric('made')) === before + 1, 'the summary made');
    const token = ws.messages[0]!.resume_token as string;
    ws.close();
    await ws.closed;
    const again = await WsClient.connect(`${rig.engine.wsUrl}?resume=${token}`);
    try {
      rig.llm.enqueue(sseText(['Yes, Ada.']));
      await again.turn('Still there?');
      expect(turns().at(-1)!.body.messages[0].content).toContain(SUMMARY);
      // Its turns are counted whole (those the history dropped too), its summary shown.
      const url = `${rig.engine.httpUrl}/api/sessions/${again.messages[0]!.session_id as string}`;
      const read = (await (await fetch(url, admin)).json()) as Record<string, unknown>;
      expect(read).toMatchObject({ turns: 4, messages: 4, summary: SUMMARY });
    } finally {
      again.close();
    }
  });

  it('goes on without a summary the model failed to make, and asks again with the next turns dropped', async () => {
    const { ws } = client;
    const before = await metric('failed');
    await longCall(ws, { kind: 'status', status: 400, body: '{"error":{"message":"bad"}}' });
    await untilAsync(async () => (await metric('failed')) === before + 1, 'the failure counted');
    rig.llm.enqueue(sseText(['Hello.']));
    await ws.turn('Hello?');
    expect(turns().at(-1)!.body.messages[0].content).toBe('You are the ACME voice agent.');
    expect(summaries()).toHaveLength(1);
    // The next turn takes the history past its bound again: the summary is asked of those turns
    // and of the first ones, which name the caller.
    rig.llm.enqueue(sseText(['Fine.']), reply(SUMMARY));
    await ws.turn('And now?');
    await until(() => summaries().length === 2, 'the second summary request');
    const asked = JSON.stringify(summaries()[1]!.body.messages);
    expect(asked).toContain('I am Ada Rossi');
    expect(asked).toContain('Hello?');
  });
});
