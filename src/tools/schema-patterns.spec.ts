import { argumentProblem } from './argument-check.js';
import { patternRegExp, unreadPatterns } from './schema-patterns.js';
import { validateToolDefinitions } from './tool-validation.js';

describe('patterns of real documents', () => {
  it.each([
    // AWS's, and many written by hand: an escaped - or _ in a class, which Unicode mode refuses.
    ['^[a-zA-Z0-9\\-\\_]{2,50}$', 'my-vault_1', 'my vault'],
    ['[^/:|\\000-\\037]+', 'stream', ''],
    // Java's POSIX classes, as ranges.
    ['^[\\p{Alnum}_]+(/[\\p{Alnum}_]+)*$', 'a_1/b', 'a b'],
    ['^\\p{Upper}\\P{Digit}$', 'Ab', 'A1'],
    // Java's Unicode scripts and properties, by JavaScript's names (Amadeus' hotel booking).
    ['^[A-Za-z \\p{Han}\\p{Katakana}\\p{Hiragana}\\p{Hangul}-]*$', 'Li 李 カ', 'Zoë'],
    ["^([A-Za-z\\-' 0-9._]|\\p{IsLetter})*$", "O'Hara Zoë", 'a+b'],
    // Unicode properties as JavaScript has them, still with Unicode.
    ['^\\p{L}+$', 'Zoë', 'Zoë1'],
  ])('reads %j: %j matches, %j does not', (pattern, good, bad) => {
    const regExp = patternRegExp(pattern)!;
    expect([regExp.test(good), regExp.test(bad)]).toEqual([true, false]);
  });

  it("checks a tool's other arguments when one pattern cannot be read, and warns of that one at load", () => {
    const parameters = {
      type: 'object',
      properties: {
        vault: { type: 'string', pattern: '^[a-zA-Z0-9\\-\\_]{2,50}$' },
        policy: { type: 'string', pattern: '[\\p{Print}&&[^|:/]]+' },
        days: { type: 'integer', minimum: 1 },
      },
    };
    // Before, Ajv refused the schema for the first pattern, and nothing was checked.
    expect(argumentProblem(parameters, { vault: 'my vault' })).toBe(
      'invalid arguments: arguments/vault must match pattern "^[a-zA-Z0-9\\-\\_]{2,50}$"',
    );
    expect(argumentProblem(parameters, { vault: 'v1', days: 0 })).toBe(
      'invalid arguments: arguments/days must be >= 1',
    );
    expect(argumentProblem(parameters, { vault: 'v1', policy: 'any|thing', days: 2 })).toBe(
      undefined,
    );
    expect(unreadPatterns(parameters)).toEqual(['[\\p{Print}&&[^|:/]]+']);
    const { warnings } = validateToolDefinitions(
      [{ name: 't', url: 'http://h/', parameters }],
      'tools.json',
    );
    expect(warnings).toEqual([
      `tools.json: tool #0 't': field 'parameters': pattern "[\\\\p{Print}&&[^|:/]]+" is not a regular expression this engine can read (JavaScript's, or Java's): values are not checked against it`,
    ]);
  });
});
