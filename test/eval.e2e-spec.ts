import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { useEvalRig } from './support/eval-rig.js';

const weather = (city: string) => ({
  user: `What is the weather in ${city}?`,
  expect: { tool_calls: [{ name: 'get_weather', arguments: { city } }], text: 'sunny' },
});

describe('npm run eval', () => {
  const rig = useEvalRig();
  const { url, write, run } = rig;

  it('holds each scenario with the engine, says which passed and why one failed, and exits 1', async () => {
    const scenarios = write('scenarios.json', {
      scenarios: [
        {
          name: 'weather in Rome',
          runs: 2,
          turns: [
            weather('Rome'),
            { user: 'Hello', expect: { tool_calls: [], text_not: 'sorry' } },
          ],
        },
        {
          name: 'the wrong city',
          turns: [
            {
              ...weather('Rome'),
              expect: { tool_calls: [{ name: 'get_weather', arguments: { city: '/^par/i' } }] },
            },
          ],
        },
        {
          name: 'a greeting',
          session: { instructions: 'Be brief.' },
          turns: [
            { user: 'Hello', expect: { tool_calls: [], text: 'help', max_first_text_ms: 20000 } },
          ],
        },
      ],
    });
    const report = write('report.json', '');
    const { code, out } = await run([
      scenarios,
      '--url',
      url(),
      '--concurrency',
      '2',
      '--json',
      report,
    ]);
    const lines = out.trim().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'PASS  weather in Rome (2 of 2 runs passed)',
        'FAIL  the wrong city (0 of 1 run passed, 1 needed)',
        '      turn #0 "What is the weather in Rome?": expected a call get_weather {"city":"/^par/i"} (in order); the turn\'s calls: get_weather {"city":"Rome"}',
        'PASS  a greeting (1 of 1 run passed)',
      ]),
    );
    expect(lines.at(-1)).toMatch(
      /^3 scenarios: 2 passed, 1 failed; 4 runs: 3 passed; turns that expect tool calls: 5 of 6 as expected; first text p50 \d+ ms, p90 \d+ ms; requests to the model per turn p50 1, p90 2$/,
    );
    expect(code).toBe(1);
    // The session's settings reached the model; the tool ran for each weather turn.
    expect(
      rig.llm.requests.some((r) => JSON.stringify(r.body.messages[0]).includes('Be brief.')),
    ).toBe(true);
    expect(rig.tools.requests.filter((r) => r.url.startsWith('/Rome')).length).toBe(3);
    const written = JSON.parse(readFileSync(report, 'utf8'));
    expect(written.summary).toMatchObject({
      scenarios: 3,
      scenariosPassed: 2,
      runs: 4,
      runsPassed: 3,
    });
    expect(written.scenarios[0].runs[0].turns[0]).toMatchObject({
      user: 'What is the weather in Rome?',
      text: 'It is sunny.',
      calls: [{ name: 'get_weather', arguments: { city: 'Rome' } }],
      failures: [],
    });
  }, 60_000);

  it("tells a turn that asked the model more often than it may, and writes each turn's timings", async () => {
    const scenarios = write('rounds.json', {
      scenarios: [
        // A call, then its answer: two requests to the model.
        {
          name: 'one round too many',
          turns: [{ ...weather('Oslo'), expect: { max_llm_requests: 1 } }],
        },
        { name: 'two rounds', turns: [{ ...weather('Bern'), expect: { max_llm_requests: 2 } }] },
      ],
    });
    const report = write('rounds-report.json', '');
    const { code, out } = await run([scenarios, '--url', url(), '--json', report]);
    expect(out).toContain(
      '      turn #0 "What is the weather in Oslo?": the turn asked the model 2 times, over max_llm_requests 1',
    );
    expect(out).toContain('PASS  two rounds (1 of 1 run passed)');
    expect(code).toBe(1);
    const turn = JSON.parse(readFileSync(report, 'utf8')).scenarios[1].runs[0].turns[0];
    expect(turn.timings).toMatchObject({ llm_requests: 2, tools_ms: expect.any(Number) });
  });

  it('writes a JUnit report for CI, a test case per scenario, and runs only those --only names', async () => {
    const scenarios = write('junit.json', {
      scenarios: [
        { name: 'weather in Rome', turns: [weather('Rome')] },
        {
          name: 'weather in <Bern> & "Zug"',
          turns: [{ ...weather('Bern'), expect: { tool_calls: [], text: 'rain' } }],
        },
        { name: 'greeting', turns: [{ user: 'Hello' }] },
      ],
    });
    const junit = write('junit.xml', '');
    const { code, out } = await run([
      scenarios,
      '--url',
      url(),
      '--only',
      '^WEATHER',
      '--junit',
      junit,
    ]);
    expect(out).not.toContain('greeting');
    expect(code).toBe(1);
    const xml = readFileSync(junit, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const suite = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(
      xml,
    ).testsuite;
    expect(suite).toMatchObject({ name: scenarios, tests: '2', failures: '1' });
    expect(suite.testcase[0]).toMatchObject({ name: 'weather in Rome' });
    expect(suite.testcase[0].failure).toBeUndefined();
    expect(suite.testcase[1]).toMatchObject({
      name: 'weather in <Bern> & "Zug"',
      failure: {
        message: 'weather in <Bern> & "Zug" (0 of 1 run passed, 1 needed)',
        '#text': expect.stringContaining(
          'expected no tool call; the turn called get_weather {"city":"Bern"}',
        ),
      },
    });
    const none = await run([scenarios, '--url', url(), '--only', 'paris']);
    expect(none.err).toContain(`--only paris matches no scenario of ${scenarios}`);
    expect(none.code).toBe(2);
  });

  it('compares models: each scenario once per model, the session asking for it, a line for each', async () => {
    const scenarios = write('models.json', {
      scenarios: [{ name: 'weather in Lima', turns: [weather('Lima')] }],
    });
    const from = rig.llm.requests.length;
    const { code, out } = await run([scenarios, '--url', url(), '--models', 'good,drifty']);
    expect(out).toContain('PASS  weather in Lima [good] (1 of 1 run passed)');
    expect(out).toContain('FAIL  weather in Lima [drifty] (0 of 1 run passed, 1 needed)');
    expect(out).toMatch(
      /^model good: 1 scenario: 1 passed, 0 failed; 1 runs: 1 passed; turns that expect tool calls: 1 of 1 as expected; first text/m,
    );
    expect(out).toMatch(
      /^model drifty: 1 scenario: 0 passed, 1 failed; 1 runs: 0 passed; turns that expect tool calls: 0 of 1 as expected; first text/m,
    );
    expect(code).toBe(1);
    const asked = new Set(rig.llm.requests.slice(from).map((r) => r.body.model as string));
    expect([...asked].sort()).toEqual(['drifty', 'good']);
    // A model the engine does not offer: its session.update is refused, saying so.
    const unknown = await run([scenarios, '--url', url(), '--models', 'nope']);
    expect(unknown.out).toMatch(/session\.update refused: unknown model "nope"/);
  });

  it('exits 0 when every scenario passes, min_passes of its runs at least', async () => {
    const scenarios = write('passing.json', {
      runs: 3,
      scenarios: [
        { name: 'weather in Oslo', min_passes: 2, turns: [weather('Oslo')] },
        { name: 'a mistake', runs: 1, turns: [{ user: 'The weather nowhere' }] },
      ],
    });
    const { code, out } = await run([scenarios, '--url', url()]);
    expect(out).toContain('PASS  weather in Oslo (3 of 3 runs passed, 2 needed)');
    // The same checks in YAML.
    const yaml = write(
      'passing.yaml',
      'scenarios:\n  - name: weather in Oslo  # as above\n    turns:\n      - user: What is the weather in Oslo?\n        expect: { tool_calls: [{ name: get_weather, arguments: { city: Oslo } }] }\n',
    );
    const fromYaml = await run([yaml, '--url', url()]);
    expect(fromYaml.out).toContain('PASS  weather in Oslo (1 of 1 run passed)');
    // Told apart from the turns' checks: the calls the model got wrong, which it then mended.
    expect(out).toContain('; calls the model got wrong: 1 (invalid_arguments 1); first text');
    expect(code).toBe(0);
  });

  it('says why it cannot hold a conversation: a wrong key, a session.update refused', async () => {
    const scenarios = write('one.json', { scenarios: [{ name: 'w', turns: [weather('Rome')] }] });
    const refused = await run([scenarios, '--url', url()], { WS_API_KEY: 'wrong' });
    expect(refused.out).toContain(
      `      cannot connect to ${url()}: the upgrade was refused: HTTP 401`,
    );
    expect(refused.code).toBe(1);
    const badSession = write('session.json', {
      scenarios: [{ name: 's', session: { modality: 'video' }, turns: [weather('Rome')] }],
    });
    const { out, code } = await run([badSession, '--url', url()]);
    expect(out).toMatch(/^ {6}session\.update refused: .*modality/m);
    expect(code).toBe(1);
  });

  it("answers what a turn asks of its client: an approval, a client tool's result", async () => {
    const openMap = {
      name: 'open_map',
      description: 'Shows a city on the map',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    };
    const scenarios = write('client.json', {
      scenarios: [
        {
          name: 'client tool and approval',
          session: { client_tools: [openMap] },
          turns: [
            {
              user: 'Show the map in Lima',
              client_results: { open_map: { shown: true } },
              expect: {
                tool_calls: [{ name: 'open_map', arguments: { city: 'Lima' } }],
                text: 'shown',
              },
            },
            {
              user: 'The weather in Quito, booked',
              approve: false,
              expect: { tool_calls: [{ name: 'book_weather' }], text_not: 'sunny' },
            },
          ],
        },
      ],
    });
    const before = rig.tools.requests.length;
    const { code, out } = await run([scenarios, '--url', url()]);
    expect(out).toContain('PASS  client tool and approval (1 of 1 run passed)');
    expect(code).toBe(0);
    // The client's result reached the model; the call not approved was never run.
    const toolMessages = rig.llm.requests.flatMap((r) =>
      (r.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool'),
    );
    expect(toolMessages.some((m) => m.content.includes('"shown":true'))).toBe(true);
    expect(rig.tools.requests.slice(before).filter((r) => r.url.startsWith('/Quito'))).toEqual([]);
  });

  it('fails a run whose turn does not end in time, or whose first text comes too late', async () => {
    const scenarios = write('slow.json', {
      scenarios: [
        { name: 'stalled', turns: [{ user: 'stall' }] },
        { name: 'slow', turns: [{ user: 'answer slowly', expect: { max_first_text_ms: 100 } }] },
      ],
    });
    const { code, out } = await run([scenarios, '--url', url(), '--turn-timeout-secs', '3']);
    expect(out).toMatch(/^ {6}turn #0 "stall": no assistant_end within 3\d{3} ms$/m);
    expect(out).toMatch(
      /^ {6}turn #0 "answer slowly": the first text came after [1-9]\d\d+ ms, over max_first_text_ms 100$/m,
    );
    expect(code).toBe(1);
  });

  it('refuses a scenarios file it cannot use, naming the file, scenario, turn and field, and exits 2', async () => {
    const bad = write('bad.json', {
      scenarios: [{ name: 'w', turns: [{ user: 'Hi', expect: { tool_call: [] } }] }],
    });
    const { code, err } = await run([bad, '--url', url()]);
    expect(err).toContain(
      `${bad}: scenario #0 ("w"): turn #0: field 'expect.tool_call' is not a field of a scenarios file`,
    );
    expect(code).toBe(2);
    const regex = write('regex.json', {
      scenarios: [{ name: 'r', turns: [{ user: 'Hi', expect: { text: '(' } }] }],
    });
    expect((await run([regex])).err).toContain(
      `${regex}: scenario #0 ("r"): turn #0: field 'expect.text' is not a regular expression`,
    );
    expect((await run([join(write('x', ''), '..', 'none.json')])).err).toContain(
      `${join(write('x', ''), '..', 'none.json')}: cannot be read`,
    );
    expect((await run([bad, '--runs', '0'])).err).toContain(
      '--runs must be a whole number of at least 1, not "0"',
    );
  });
});
