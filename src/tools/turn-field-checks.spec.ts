import { validateToolDefinitions } from './tool-validation.js';
import { definitionRefusal } from '../../test/support/definition-refusal.js';

const weather = {
  name: 'get_weather',
  url: 'https://wttr.in/{city}',
  method: 'GET',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};

/** Why the tools file of `entry` is refused. */
const refusal = (entry: Record<string, unknown>) => definitionRefusal([entry]);

describe("the fields of how a tool's calls join a turn", () => {
  it('takes at_start and user_given where they can be kept', () => {
    const { tools } = validateToolDefinitions(
      [
        { ...weather, at_start: true },
        { ...weather, name: 'book', method: 'POST', user_given: ['city'] },
        {
          type: 'python',
          name: 'hours',
          code: 'def hours() -> str:\n    return "9 to 5"',
          at_start: true,
        },
      ],
      'tools.json',
    );
    expect(tools.map((t) => [t.name, t.atStart, t.userGiven])).toEqual([
      ['get_weather', true, undefined],
      ['book', undefined, ['city']],
      ['hours', true, undefined],
    ]);
  });

  it('refuses at_start where the engine could not make the call, naming the tool and field', () => {
    const at = "tools.json: tool #0 'get_weather': field 'at_start'";
    expect(
      refusal({
        ...weather,
        parameters: { ...weather.parameters, required: ['city'] },
        at_start: true,
      }),
    ).toBe(
      `${at} needs a tool that takes no required argument: the engine calls it with none (its 'parameters' require "city")`,
    );
    for (const field of ['confirm', 'background', 'deferred'])
      expect(refusal({ ...weather, at_start: true, [field]: true })).toBe(
        `${at} cannot go with '${field}': the engine makes the call before the user has said anything`,
      );
    expect(refusal({ type: 'end_session', name: 'bye', at_start: true })).toBe(
      `tools.json: tool #0 'bye': field 'at_start' is for HTTP, OpenAPI and code tools, not for type "end_session"`,
    );
  });

  it('refuses user_given naming what is not one of the parameters', () => {
    expect(refusal({ ...weather, user_given: ['city', 'country'] })).toBe(
      "tools.json: tool #0 'get_weather': field 'user_given' names 'country', which is not one of its parameters (city)",
    );
    expect(refusal({ ...weather, user_given: [] })).toMatch(
      /^tools\.json: tool #0 'get_weather': field 'user_given' is invalid/,
    );
    expect(refusal({ ...weather, background: true, type: 'handoff', instructions: 'x' })).toMatch(
      /field 'background' is only for tools whose result the model reads, not for type "handoff"/,
    );
  });
});
