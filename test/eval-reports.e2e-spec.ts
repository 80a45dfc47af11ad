import { useEvalRig } from './support/eval-rig.js';
import { WsClient } from './support/ws-client.js';
import { until } from './support/waiting.js';

/**
 * A conversation that went well, kept as a check: its end-of-session report made a scenario
 * (`npm run eval -- --from-report`), held again with the engine, passing; then failing once the
 * model writes its arguments otherwise.
 */
describe('npm run eval -- --from-report', () => {
  const rig = useEvalRig((base) => ({
    SESSION_WEBHOOK_URL: `${base}/reports`,
    ADMIN_API_KEY: 'admin-key',
  }));

  it("makes a scenario of a session's report that the engine passes, and that catches a drift", async () => {
    const ws = await WsClient.connect(rig.url(), { Authorization: 'Bearer eval-key' });
    ws.send({ type: 'session.update', instructions: 'The caller is Ada.' });
    await ws.waitFor((m) => m.type === 'session.updated');
    await ws.turn('What is the weather in Lima?');
    await ws.turn('Hello');
    const sessionId = ws.messages[0]!.session_id as string;
    ws.close();
    const reportOf = () =>
      rig.tools.requests.find((r) => r.path === '/reports' && r.body.includes(sessionId));
    await until(() => reportOf() !== undefined, 'the session report');
    const report = rig.write('report.json', reportOf()!.body);

    const made = await rig.run(['--from-report', '--name', 'lima', report]);
    expect(made.code).toBe(0);
    const scenarios = JSON.parse(made.out);
    expect(scenarios).toEqual({
      scenarios: [
        {
          name: 'lima',
          session: expect.objectContaining({ instructions: 'The caller is Ada.' }),
          turns: [
            {
              user: 'What is the weather in Lima?',
              expect: { tool_calls: [{ name: 'get_weather', arguments: { city: 'Lima' } }] },
            },
            { user: 'Hello', expect: { tool_calls: [] } },
          ],
        },
      ],
    });
    const checks = rig.write('lima.json', made.out);
    const passing = await rig.run([checks, '--url', rig.url()]);
    expect(passing.out).toContain('PASS  lima (1 of 1 run passed)');
    expect(passing.code).toBe(0);

    rig.drift = true;
    const drifted = await rig.run([checks, '--url', rig.url()]);
    expect(drifted.out).toContain(
      `turn #0 "What is the weather in Lima?": expected a call get_weather {"city":"Lima"} (in order); the turn's calls: get_weather {"city":"lima"}`,
    );
    expect(drifted.code).toBe(1);
  });

  it('makes one of a session still open, as GET /api/sessions/{id} tells it', async () => {
    rig.drift = false; // as the test before left it
    const ws = await WsClient.connect(rig.url(), { Authorization: 'Bearer eval-key' });
    ws.send({ type: 'session.update', instructions: 'The caller is Bo.' });
    await ws.waitFor((m) => m.type === 'session.updated');
    await ws.turn('What is the weather in Quito?');
    const sessionId = ws.messages[0]!.session_id as string;
    const detail = await fetch(`${rig.engine.httpUrl}/api/sessions/${sessionId}`, {
      headers: { Authorization: 'Bearer admin-key' },
    });
    expect(detail.status).toBe(200);
    const saved = rig.write('open-session.json', await detail.text());
    const made = await rig.run(['--from-report', '--name', 'quito', saved]);
    expect(made.code).toBe(0);
    const scenarios = rig.write('open-session-scenarios.json', made.out);
    expect(JSON.parse(made.out).scenarios[0]).toEqual({
      name: 'quito',
      session: expect.objectContaining({ instructions: 'The caller is Bo.' }),
      turns: [
        {
          user: 'What is the weather in Quito?',
          expect: { tool_calls: [{ name: 'get_weather', arguments: { city: 'Quito' } }] },
        },
      ],
    });
    ws.close();
    const held = await rig.run([scenarios, '--url', rig.url()]);
    expect(held.out).toContain('PASS  quito (1 of 1 run passed)');
    expect(held.code).toBe(0);
  });

  it('holds a scenario whose session mocks a tool that acts: its service is never called', async () => {
    const scenarios = rig.write('mocked.json', {
      scenarios: [
        {
          name: 'booked',
          session: { tool_mocks: { book_weather: 'Booked for Quito.' } },
          turns: [
            {
              user: 'The weather in Quito, booked',
              expect: { tool_calls: [{ name: 'book_weather' }], text: 'Booked for Quito' },
            },
          ],
        },
      ],
    });
    const before = rig.tools.requests.length;
    const { code, out } = await rig.run([scenarios, '--url', rig.url()]);
    expect(out).toContain('PASS  booked (1 of 1 run passed)');
    expect(code).toBe(0);
    expect(rig.tools.requests.slice(before).filter((r) => r.path !== '/reports')).toEqual([]);
  });

  it("holds the application's notes: one read with the next turn, one answered by its own", async () => {
    rig.drift = false; // as the test before left it
    const scenarios = rig.write('notes.json', {
      scenarios: [
        {
          name: 'notes',
          turns: [
            { note: 'The caller is on the pricing page.' },
            { user: 'Hello', expect: { tool_calls: [], text: 'help' } },
            {
              note: 'The caller asked the page for the weather in Lima.',
              respond: true,
              expect: { tool_calls: [{ name: 'get_weather', arguments: { city: 'Lima' } }] },
            },
          ],
        },
      ],
    });
    const from = rig.llm.requests.length;
    const { code, out } = await rig.run([scenarios, '--url', rig.url()]);
    expect(out).toContain('PASS  notes (1 of 1 run passed)');
    expect(code).toBe(0);
    // The first note went in ahead of the user's words.
    const first = JSON.stringify(rig.llm.requests[from]!.body.messages);
    expect(first).toContain('The caller is on the pricing page.');
  });

  it('says what it cannot make a scenario of, and exits 2', async () => {
    const notReport = rig.write('not-report.json', { session_id: 'x' });
    const { code, err } = await rig.run(['--from-report', notReport]);
    expect(err).toContain(`${notReport}: no "history" list`);
    expect(code).toBe(2);
    const two = await rig.run(['--from-report', '--name', 'n', notReport, notReport]);
    expect(two.err).toContain('--name names the scenario of one report, not of several');
  });
});
