import { createHmac } from 'node:crypto';
import { Engine } from './support/engine.js';
import { useBuiltEngines } from './support/built-engine.js';
import { FakeLlm, sseTextWithUsage, useFakeLlm } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { untilAsync } from './support/waiting.js';
import { oneTextAnswer } from './support/latency.js';
import { WsClient } from './support/ws-client.js';

/**
 * SESSION_WEBHOOK_URL: each connection's end-of-session report — the conversation and how it
 * ended — POSTed to the operator's receiver, signed with SESSION_WEBHOOK_SECRET, and sent again
 * after the receiver's failure.
 */
describe('SESSION_WEBHOOK_URL', () => {
  const { llm, url } = useFakeLlm();
  const receiver = new RecordingServer();
  let engine: Engine;
  let failures = 0;
  beforeAll(async () => {
    receiver.respond((_req, res) => {
      if (failures > 0) {
        failures--;
        return void res.writeHead(503).end('busy');
      }
      res.end('ok');
    });
    engine = await Engine.start({
      LLM_BASE_URL: url(),
      LLM_MODEL: 'm',
      SESSION_WEBHOOK_URL: `${await receiver.start()}/reports`,
      SESSION_WEBHOOK_SECRET: 'whsec-1',
    });
  });
  afterAll(async () => {
    await engine.stop();
    await receiver.stop();
  });

  it('posts the conversation when the connection closes, signed, and again after a 503', async () => {
    failures = 1;
    const ws = await WsClient.connect(engine.wsUrl);
    const id = ws.messages.find((m) => m.type === 'session')!.session_id as string;
    ws.send({ type: 'session.update', variables: { user_token: 'tok-very-secret' } });
    await ws.waitFor((m) => m.type === 'session.updated');
    llm.enqueue(sseTextWithUsage(['Hello ', 'Ada.'], 120, 4));
    await ws.turn('My name is Ada.');
    ws.close();
    await untilAsync(
      async () => Promise.resolve(receiver.requests.length === 2),
      'the report, twice',
    );
    const [failed, delivered] = receiver.requests;
    expect(failed!.body).toBe(delivered!.body);
    expect(delivered!.path).toBe('/reports');
    const report = JSON.parse(delivered!.body) as Record<string, any>;
    expect(report).toEqual({
      type: 'session.ended',
      session_id: id,
      started_at: expect.stringMatching(/^\d{4}-/),
      opened_at: expect.stringMatching(/^\d{4}-/),
      ended_at: expect.stringMatching(/^\d{4}-/),
      duration_secs: expect.any(Number),
      close_code: 1005,
      end_reason: 'client',
      resumable: true,
      settings: expect.objectContaining({ modality: 'text', variables: ['user_token'] }),
      agent: null,
      turns: 1,
      usage: { prompt_tokens: 120, completion_tokens: 4, total_tokens: 124 },
      latency: oneTextAnswer(),
      history: [
        { role: 'user', content: 'My name is Ada.' },
        { role: 'assistant', content: 'Hello Ada.' },
      ],
    });
    expect(delivered!.body).not.toContain('tok-very-secret');
    // The receiver checks the signature: HMAC-SHA256 of "t.body" with the shared secret.
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(
      String(delivered!.headers['x-engine-signature']),
    )!;
    const expected = createHmac('sha256', 'whsec-1')
      .update(`${t}.${delivered!.body}`)
      .digest('hex');
    expect(v1).toBe(expected);
    expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(60);

    // Resumed, the session's next report holds the whole conversation and all its tokens.
    const token = ws.messages.find((m) => m.type === 'session')!.resume_token as string;
    const again = await WsClient.connect(`${engine.wsUrl}?resume=${encodeURIComponent(token)}`);
    llm.enqueue(sseTextWithUsage(['Yes, Ada.'], 140, 3));
    await again.turn('Do you know me?');
    again.close();
    await untilAsync(
      async () => Promise.resolve(receiver.requests.length === 3),
      'the second report',
    );
    expect(JSON.parse(receiver.requests[2]!.body)).toMatchObject({
      session_id: id,
      turns: 2,
      usage: { prompt_tokens: 260, completion_tokens: 7, total_tokens: 267 },
    });
    const metrics = await (await fetch(`${engine.httpUrl}/metrics`)).text();
    expect(metrics).toMatch(/^agent_engine_session_reports_total\{outcome="delivered"\} 2$/m);
  }, 30_000);
});

describe('SESSION_WEBHOOK_URL when the engine stops (SIGTERM)', () => {
  const llm = new FakeLlm();
  const receiver = new RecordingServer();
  const startEngine = useBuiltEngines();
  afterAll(() => Promise.all([llm.stop(), receiver.stop()]));

  it('delivers the reports of the sessions it closed, retries included, before it exits', async () => {
    let busy = true;
    receiver.respond((_req, res) => {
      if (busy) {
        busy = false;
        return void res.writeHead(503).end('busy');
      }
      res.end('ok');
    });
    const engine = await startEngine({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      SESSION_WEBHOOK_URL: await receiver.start(),
    });
    const ws = await WsClient.connect(engine.wsUrl);
    engine.stop();
    expect(await ws.closed).toBe(1001);
    expect(await engine.exited).toBe(0);
    expect(receiver.requests.map((r) => JSON.parse(r.body).close_code)).toEqual([1001, 1001]);
  }, 30_000);
});
