import { parseCallStatements, parsePythonicCalls, parsePythonLiteral } from './python-literal.js';

// Values a model writes as Python literals (what the reference parsers read with
// `ast.literal_eval` when `json.loads` fails), each checked against what Python gives.
describe('parsePythonLiteral', () => {
  it.each([
    ["{'city': 'Paris', 'days': 3}", { city: 'Paris', days: 3 }],
    [
      '[1, 2.5, -3, 1_000, .5, 1e3, True, False, None]',
      [1, 2.5, -3, 1000, 0.5, 1000, true, false, null],
    ],
    ["('a', 'b',)", ['a', 'b']],
    ["{'nested': {'list': [{'k': None}]}}", { nested: { list: [{ k: null }] } }],
    ['{1: "one"}', { '1': 'one' }],
    // JSON's words in a literal that is not JSON (single quotes), as models mix them.
    ["{'ok': true, 'off': false, 'none': null}", { ok: true, off: false, none: null }],
    ['1_000_000', 1000000],
    ['  "spaced"  ', 'spaced'],
    // An integer no JavaScript number holds stays its digits (json.ts, parseJsonExact).
    [
      "{'id': 12345678901234567890, 'neg': -1_790_000_000_000_000_001, 'pos': +7}",
      { id: '12345678901234567890', neg: '-1790000000000000001', pos: 7 },
    ],
  ])('reads %s', (text, value) => {
    expect(parsePythonLiteral(text)).toEqual(value);
  });

  it.each([
    [String.raw`'it\'s'`, "it's"],
    [String.raw`"say \"hi\""`, 'say "hi"'],
    [String.raw`'a\nb\tc\rd'`, 'a\nb\tc\rd'],
    [String.raw`'back\\slash'`, 'back\\slash'],
    [String.raw`'\a\b\f\v'`, '\x07\b\f\v'],
    [String.raw`'\x41\u00e9\U0001F600'`, 'Aé😀'],
    [String.raw`'\0\012\101'`, '\0\nA'],
    ["'line\\\ncontinued'", 'linecontinued'],
    // Unknown escapes keep their backslash, as in Python.
    [String.raw`'C:\path\d+'`, 'C:\\path\\d+'],
  ])('reads the escapes of %s as Python does', (text, value) => {
    expect(parsePythonLiteral(text)).toBe(value);
  });

  it.each([
    String.raw`'\x4'`,
    String.raw`'\u00g9'`,
    String.raw`'\U00110000'`,
    "'unterminated",
    "{'a': 1",
    "{'a' 1}",
    '[1 2]',
    'Trueish',
    'name',
    "'a' 'b'",
    '',
  ])('gives undefined for %j, which is no literal', (text) => {
    expect(parsePythonLiteral(text)).toBeUndefined();
  });
});

describe('parsePythonicCalls', () => {
  it('reads a list of calls with keyword arguments', () => {
    expect(
      parsePythonicCalls('[get_weather(city="Paris", days=2), get_time(), ns.tool(x=[1])]'),
    ).toEqual([
      { name: 'get_weather', args: { city: 'Paris', days: 2 } },
      { name: 'get_time', args: {} },
      { name: 'ns.tool', args: { x: [1] } },
    ]);
  });

  it.each(['[]', 'get_time()', '[get_time(]', '[get_time() x]', '[1(a=2)]', '[f(a)]'])(
    'gives undefined for %j',
    (text) => {
      expect(parsePythonicCalls(text)).toBeUndefined();
    },
  );
});

describe('parseCallStatements', () => {
  it('reads calls one a line or after semicolons, printed or not', () => {
    expect(
      parseCallStatements(
        'get_weather(city="Paris")\nprint(default_api.get_time(zone=\'CET\'))\nf(); g(a=[1,\n 2])\n',
      ),
    ).toEqual([
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'default_api.get_time', args: { zone: 'CET' } },
      { name: 'f', args: {} },
      { name: 'g', args: { a: [1, 2] } },
    ]);
  });

  it.each(['', 'x = f(a=1)', 'print({"a": 1})', 'f(a=1) + 2', 'print(f(a=1)', 'import os'])(
    'gives undefined for %j',
    (text) => {
      expect(parseCallStatements(text)).toBeUndefined();
    },
  );
});
