import { readClientTools, replyOf, replyOutcome } from './client-tools.js';

describe('readClientTools', () => {
  it('applies defaults and keeps what was given', () => {
    expect(
      readClientTools(
        [
          { name: 'vibrate' },
          { name: 'pick_photo', description: 'Lets the user pick a photo', timeout_secs: 120 },
        ],
        [],
      ),
    ).toEqual({
      tools: [
        { name: 'vibrate', description: '', parameters: { type: 'object', properties: {} } },
        {
          name: 'pick_photo',
          description: 'Lets the user pick a photo',
          parameters: { type: 'object', properties: {} },
          timeout_secs: 120,
        },
      ],
    });
  });

  it('takes the type names Qwen parsers know, as the tools file does', () => {
    const parameters = { type: 'object', properties: { level: { type: 'float' } } };
    expect(readClientTools([{ name: 'dim', parameters }], [])).toEqual({
      tools: [{ name: 'dim', description: '', parameters }],
    });
  });

  it('refuses schemas that could stall the engine: a pattern, or a huge one; a parameter named pattern is fine', () => {
    const named = { type: 'object', properties: { pattern: { type: 'string' } } };
    expect(readClientTools([{ name: 'x', parameters: named }], [])).toMatchObject({
      tools: [{ name: 'x' }],
    });
    // Nor a definition named so, whichever keyword holds it.
    for (const holder of ['definitions', '$defs', 'dependentSchemas']) {
      const defined = { type: 'object', [holder]: { pattern: { type: 'string' } } };
      expect(readClientTools([{ name: 'x', parameters: defined }], [])).toMatchObject({
        tools: [{ name: 'x' }],
      });
    }
    const regex = { type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } } };
    expect(readClientTools([{ name: 'x', parameters: regex }], [])).toEqual({
      error:
        "client_tools[0] 'x': field 'parameters' uses 'pattern', which tools of a client may not (a regular expression could stall the engine)",
    });
    const nested = {
      type: 'object',
      properties: { o: { type: 'object', patternProperties: { '^a': {} } } },
    };
    expect(readClientTools([{ name: 'x', parameters: nested }], [])).toMatchObject({
      error: expect.stringContaining("uses 'patternProperties'"),
    });
    const nestedSchema = (levels: number) => {
      let deep: Record<string, unknown> = { type: 'string' };
      for (let i = 0; i < levels; i++) deep = { type: 'object', properties: { a: deep } };
      return deep;
    };
    expect(readClientTools([{ name: 'x', parameters: nestedSchema(32) }], [])).toMatchObject({
      tools: [{ name: 'x' }],
    });
    expect(readClientTools([{ name: 'x', parameters: nestedSchema(33) }], [])).toEqual({
      error: "client_tools[0] 'x': field 'parameters' is nested deeper than 32 levels",
    });
    const huge = { type: 'object', description: 'd'.repeat(20_000) };
    expect(readClientTools([{ name: 'x', parameters: huge }], [])).toEqual({
      error: "client_tools[0] 'x': field 'parameters' is longer than 16384 characters of JSON",
    });
  });

  it.each([
    [
      { name: 'x', timeout_secs: 0 },
      "client_tools[0] 'x': field 'timeout_secs' is invalid: expected a number of seconds, greater than 0 and at most 3600",
    ],
    [
      { name: 'x', description: 'd'.repeat(4001) },
      "client_tools[0] 'x': field 'description' is invalid: expected a string of at most 4000 characters",
    ],
    [
      { description: 'no name' },
      'client_tools[0]: field \'name\' is required: expected letters, digits, "_" or "-" (1 to 64 characters)',
    ],
    [
      { name: 'x', parameters: [] },
      "client_tools[0] 'x': field 'parameters' is invalid: expected a JSON Schema object",
    ],
    [null, 'client_tools[0]: expected an object'],
  ])('refuses entry %#, naming the tool and the field', (entry, error) => {
    expect(readClientTools([entry], [])).toEqual({ error });
  });
});

describe('replyOutcome', () => {
  it('hands text as it is, other JSON as JSON, and an error as the seed’s error texts begin', () => {
    expect(replyOutcome({ result: 'shown' }, 100)).toEqual({ ok: true, text: 'shown' });
    expect(replyOutcome({ result: { a: [1, null] } }, 100)).toEqual({
      ok: true,
      text: '{"a":[1,null]}',
    });
    expect(replyOutcome({ result: null }, 100)).toEqual({ ok: true, text: 'null' });
    expect(replyOutcome({ result: '' }, 100)).toEqual({ ok: true, text: '(empty result)' });
    const deep = JSON.parse('['.repeat(50_000) + ']'.repeat(50_000)) as unknown;
    expect(replyOutcome({ result: { photos: deep } }, 100)).toEqual({
      ok: false,
      text: 'Error: the result is nested more than 100 levels deep',
    });
    expect(replyOutcome({ error: 'no camera' }, 100)).toEqual({
      ok: false,
      text: 'Error: no camera',
    });
    expect(replyOutcome({ result: 'abcdef' }, 3)).toEqual({ ok: true, text: 'abc… [truncated]' });
    expect(replyOutcome({ error: 'no camera' }, 5)).toEqual({
      ok: false,
      text: 'Error… [truncated]',
    });
  });

  it('reads the reply a client_tool_result carries', () => {
    expect(replyOf({ result: 0 })).toEqual({ result: 0 });
    expect(replyOf({ error: 'e' })).toEqual({ error: 'e' });
  });
});
