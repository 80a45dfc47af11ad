import { sseText } from './support/fake-llm.js';
import { samples } from './support/prometheus.js';
import { until, untilAsync } from './support/waiting.js';
import { kinds, useEngineRig } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';

const LIMIT_MS = 3000;
const GOODBYE = 'Our time is up. Goodbye!';
const ADMIN = { Authorization: 'Bearer adm' };
const ENDED = 'agent_engine_sessions_ended_total{reason="time_limit"}';

/**
 * SESSION_MAX_SECS: a conversation longer than the limit (a caller who never hangs up, two
 * agents talking in a loop) is ended by the engine: the turn in progress first, then a goodbye,
 * then close 4007, not to be resumed. Its time counts from its first connection.
 */
describe('a conversation at its time limit (SESSION_MAX_SECS)', () => {
  const rig = useEngineRig((toolsUrl) => ({
    LLM_MODEL: 'm',
    SESSION_MAX_SECS: String(LIMIT_MS / 1000),
    SESSION_MAX_GOODBYE: JSON.stringify({ en: GOODBYE, it: 'Il tempo è scaduto. Arrivederci!' }),
    SESSION_MAX_NOTICE_SECS: '2',
    ADMIN_API_KEY: 'adm',
    SESSION_WEBHOOK_URL: `${toolsUrl}/reports`,
  }));
  beforeEach(() => rig.llm.reset());

  /** The end-of-session reports received for session `id`. */
  const reports = (id: unknown) =>
    rig.tools.requests
      .filter((r) => r.path === '/reports')
      .map((r) => JSON.parse(r.body) as Record<string, unknown>)
      .filter((report) => report.session_id === id);
  /** Waits for `count` reports of session `id` (none is left on its way when the engine stops). */
  const reported = async (id: unknown, count = 1) => {
    await until(() => reports(id).length === count, `${count} report(s) of the session`);
    return reports(id);
  };

  it('says the goodbye when the time is up and closes with 4007, for good', async () => {
    const opened = Date.now();
    const ws = await WsClient.connect(rig.engine.wsUrl);
    const token = ws.messages[0]!.resume_token as string;
    rig.llm.enqueue(sseText(['Hello! ', 'How can I help?']));
    expect((await ws.turn('Hi')).at(-1)!.text).toBe('Hello! How can I help?');
    const from = ws.messages.length;
    expect(await ws.closed).toBe(4007);
    expect(Date.now() - opened).toBeGreaterThanOrEqual(LIMIT_MS);
    const goodbye = ws.messages.slice(from);
    expect(kinds(goodbye)).toEqual(['assistant_delta', 'assistant_end']);
    expect(goodbye.at(-1)).toEqual({ type: 'assistant_end', text: GOODBYE });
    // Said, not asked of the model.
    expect(rig.llm.requests).toHaveLength(1);
    // Counted, reported, and not to be resumed.
    await untilAsync(async () => {
      const scrape = await fetch(`${rig.engine.httpUrl}/metrics`, { headers: ADMIN });
      return samples(await scrape.text()).get(ENDED) === 1;
    }, 'the session counted as ended by its time limit');
    const [report] = await reported(ws.messages[0]!.session_id);
    expect(report).toMatchObject({ close_code: 4007, end_reason: 'time_limit', resumable: false });
    const again = await WsClient.connect(`${rig.engine.wsUrl}?resume=${encodeURIComponent(token)}`);
    expect(again.messages[0]).toMatchObject({ type: 'session', resumed: false });
    again.close();
    await reported(again.messages[0]!.session_id);
  });

  it('lets the answer in progress end whole first, and answers nothing after the limit', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    ws.send({ type: 'session.update', language: 'it' });
    await ws.waitFor((m) => m.type === 'session.updated');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    rig.llm.enqueue({ ...sseText(['Certo, ', 'ecco ', 'la risposta.']), gate });
    ws.send({ type: 'user_text', text: 'Una domanda lunga.' });
    await ws.waitFor((m) => m.type === 'assistant_delta');
    await new Promise((resolve) => setTimeout(resolve, LIMIT_MS + 300));
    // Past the limit: typed words start no turn (and do not cut the answer), nor does a note.
    ws.send({ type: 'user_text', text: 'Ci sei?' });
    ws.send({ type: 'note', text: 'Payment received.', respond: true });
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    expect(await ws.closed).toBe(4007);
    const ends = ws.messages.filter((m) => m.type === 'assistant_end');
    expect(ends).toEqual([
      { type: 'assistant_end', text: 'Certo, ecco la risposta.' },
      { type: 'assistant_end', text: 'Il tempo è scaduto. Arrivederci!' },
    ]);
    expect(rig.llm.requests).toHaveLength(1);
    // The note is kept with the session (its report's history), not lost.
    const [report] = await reported(ws.messages[0]!.session_id);
    const history = report!.history as { role: string; content: string }[];
    expect(history.filter((m) => m.content.endsWith(']\nPayment received.'))).toHaveLength(1);
  });

  it('tells the model in its system message once the end is near (SESSION_MAX_NOTICE_SECS)', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    const opened = Date.now();
    rig.llm.enqueue(sseText(['Sure.']), sseText(['Anything else?']));
    await ws.turn('Hello.');
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, opened + 1500 - Date.now())));
    await ws.turn('Thanks.');
    const [early, late] = rig.llm.requests.map((r) => r.body.messages[0].content as string);
    expect(early).not.toContain('time limit');
    expect(late).toBe(
      `${early}\n\nThis conversation reaches its time limit in less than 2 seconds, and then ends: bring it to a close briefly, and start nothing that takes long.`,
    );
    expect(await ws.closed).toBe(4007);
    await reported(ws.messages[0]!.session_id);
  });

  it('takes a shorter time a session sets (max_secs), never a longer one', async () => {
    const opened = Date.now();
    const ws = await WsClient.connect(rig.engine.wsUrl);
    expect(ws.messages[0]!.settings).toMatchObject({ max_secs: null });
    ws.send({ type: 'session.update', max_secs: 4 });
    const refused = await ws.waitFor((m) => m.type === 'error');
    expect(refused).toEqual({
      type: 'error',
      code: 'invalid_message',
      message:
        '"max_secs" is over SESSION_MAX_SECS (3): a session may shorten its time, not lengthen it; nothing was changed',
    });
    ws.send({ type: 'session.update', max_secs: 1 });
    const updated = await ws.waitFor((m) => m.type === 'session.updated');
    expect(updated.settings).toMatchObject({ max_secs: 1 });
    expect(await ws.closed).toBe(4007);
    expect(Date.now() - opened).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - opened).toBeLessThan(LIMIT_MS);
    expect(ws.messages.at(-1)).toEqual({ type: 'assistant_end', text: GOODBYE });
    await reported(ws.messages[0]!.session_id);
  });

  it("counts from the conversation's start when it is resumed on a new connection", async () => {
    const opened = Date.now();
    const first = await WsClient.connect(rig.engine.wsUrl);
    const token = first.messages[0]!.resume_token as string;
    await new Promise((resolve) => setTimeout(resolve, LIMIT_MS / 4));
    first.close();
    await first.closed;
    await new Promise((resolve) => setTimeout(resolve, LIMIT_MS / 4));
    const resumed = await WsClient.connect(
      `${rig.engine.wsUrl}?resume=${encodeURIComponent(token)}`,
    );
    const at = Date.now();
    expect(resumed.messages[0]).toMatchObject({ type: 'session', resumed: true });
    // The admin API tells when it began and when it ends.
    const listed = await fetch(`${rig.engine.httpUrl}/api/sessions`, { headers: ADMIN });
    const [summary] = ((await listed.json()) as { sessions: Record<string, string>[] }).sessions;
    const started = Date.parse(summary!.started_at!);
    expect(started).toBeGreaterThanOrEqual(opened);
    expect(Date.parse(summary!.opened_at!)).toBeGreaterThan(started + LIMIT_MS / 2 - 50);
    expect(Date.parse(summary!.ends_at!)).toBe(started + LIMIT_MS);
    expect(await resumed.closed).toBe(4007);
    expect(Date.now() - opened).toBeGreaterThanOrEqual(LIMIT_MS);
    // Counted afresh, it would have lasted the whole limit on this connection.
    expect(Date.now() - at).toBeLessThan(LIMIT_MS);
    expect(resumed.messages.at(-1)).toEqual({ type: 'assistant_end', text: GOODBYE });
    // One report a connection: the first one's could still be resumed, the second's not.
    const [left, ended] = await reported(first.messages[0]!.session_id, 2);
    expect([left!.resumable, ended!.resumable]).toEqual([true, false]);
    // Each tells its connection's opening, and the conversation's start.
    expect(ended!.started_at).toBe(left!.started_at);
    expect(Date.parse(ended!.opened_at as string)).toBeGreaterThan(
      Date.parse(left!.ended_at as string),
    );
  });
});
