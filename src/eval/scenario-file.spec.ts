import { parseScenarios } from './scenario-file.js';

const parse = (data: unknown) => () => parseScenarios(JSON.stringify(data), 'checks.json');
const turn = { user: 'What is the weather in Rome?' };

describe('parseScenarios', () => {
  it('takes a file of scenarios, runs once each unless it says', () => {
    const file = parseScenarios(
      JSON.stringify({ scenarios: [{ name: 'w', turns: [turn] }] }),
      'checks.json',
    );
    expect(file).toEqual({ runs: 1, scenarios: [{ name: 'w', turns: [turn] }] });
  });

  it('names the file, the scenario, the turn and the field of what it refuses', () => {
    expect(() => parseScenarios('{', 'checks.json')).toThrow(/^checks\.json: not JSON: /);
    expect(parse({ scenarios: [] })).toThrow(
      "checks.json: field 'scenarios' must NOT have fewer than 1 items",
    );
    expect(parse({ scenarios: [{ name: 'w' }] })).toThrow(
      `checks.json: scenario #0 ("w"): field 'turns' is missing`,
    );
    expect(parse({ scenarios: [{ name: 'w', turns: [turn, { user: '' }] }] })).toThrow(
      `checks.json: scenario #0 ("w"): turn #1: field 'user' must NOT have fewer than 1 characters`,
    );
    expect(
      parse({ scenarios: [{ name: 'w', turns: [{ ...turn, expect: { tool_calls: [{}] } }] }] }),
    ).toThrow(
      `checks.json: scenario #0 ("w"): turn #0: field 'expect.tool_calls.0.name' is missing`,
    );
    expect(parse({ scenarios: [{ name: 'w', runs: 2, min_passes: 3, turns: [turn] }] })).toThrow(
      `checks.json: scenario #0 ("w"): field 'min_passes' is more than its 2 run(s)`,
    );
    expect(parse({ runs: 0, scenarios: [{ name: 'w', turns: [turn] }] })).toThrow(
      "checks.json: field 'runs' must be >= 1",
    );
    expect(parse({ scenario: [] })).toThrow("checks.json: field 'scenarios' is missing");
  });
});
