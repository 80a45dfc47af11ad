import { parseScenarios } from './scenario-file.js';

const parse = (data: unknown) => parseScenarios(JSON.stringify(data), 'checks.json');
const turn = { user: 'What is the weather in Rome?' };

describe('parseScenarios', () => {
  it('takes a file of scenarios, runs once each unless it says; in YAML too', async () => {
    const file = await parse({ scenarios: [{ name: 'w', turns: [turn] }] });
    expect(file).toEqual({ runs: 1, scenarios: [{ name: 'w', turns: [turn] }] });
    const yaml = [
      'runs: 2',
      'scenarios:',
      '  - name: w   # the weather',
      '    turns:',
      `      - user: ${turn.user}`,
      '        expect: { tool_calls: [{ name: get_weather, arguments: { city: Rome } }] }',
    ].join('\n');
    expect(await parseScenarios(yaml, 'checks.yaml')).toEqual({
      runs: 2,
      scenarios: [
        {
          name: 'w',
          turns: [
            {
              ...turn,
              expect: { tool_calls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] },
            },
          ],
        },
      ],
    });
    await expect(parseScenarios('scenarios: [\n', 'checks.yml')).rejects.toThrow(
      /^checks\.yml: not valid YAML: /,
    );
  });

  it('names the file, the scenario, the turn and the field of what it refuses', async () => {
    await expect(parseScenarios('{', 'checks.json')).rejects.toThrow(
      /^checks\.json: not valid JSON: /,
    );
    await expect(parse({ scenarios: [] })).rejects.toThrow(
      "checks.json: field 'scenarios' must NOT have fewer than 1 items",
    );
    await expect(parse({ scenarios: [{ name: 'w' }] })).rejects.toThrow(
      `checks.json: scenario #0 ("w"): field 'turns' is missing`,
    );
    await expect(
      parse({ scenarios: [{ name: 'w', turns: [turn, { user: '' }] }] }),
    ).rejects.toThrow(
      `checks.json: scenario #0 ("w"): turn #1: field 'user' must NOT have fewer than 1 characters`,
    );
    await expect(
      parse({ scenarios: [{ name: 'w', turns: [{ ...turn, expect: { tool_calls: [{}] } }] }] }),
    ).rejects.toThrow(
      `checks.json: scenario #0 ("w"): turn #0: field 'expect.tool_calls.0.name' is missing`,
    );
    await expect(
      parse({ scenarios: [{ name: 'w', runs: 2, min_passes: 3, turns: [turn] }] }),
    ).rejects.toThrow(
      `checks.json: scenario #0 ("w"): field 'min_passes' is more than its 2 run(s)`,
    );
    await expect(parse({ runs: 0, scenarios: [{ name: 'w', turns: [turn] }] })).rejects.toThrow(
      "checks.json: field 'runs' must be >= 1",
    );
    await expect(parse({ scenario: [] })).rejects.toThrow(
      "checks.json: field 'scenarios' is missing",
    );
    const at = 'checks.json: scenario #0 ("w"): turn #0';
    await expect(parse({ scenarios: [{ name: 'w', turns: [{ expect: {} }] }] })).rejects.toThrow(
      `${at}: give "user" (the user's words) or "note" (the application's), one of them`,
    );
    await expect(
      parse({ scenarios: [{ name: 'w', turns: [{ ...turn, respond: true }] }] }),
    ).rejects.toThrow(`${at}: field 'respond' is a note's`);
    await expect(
      parse({ scenarios: [{ name: 'w', turns: [{ note: 'Paid.', expect: { text: 'x' } }] }] }),
    ).rejects.toThrow(`${at}: field 'expect' needs "respond": true`);
  });
});
