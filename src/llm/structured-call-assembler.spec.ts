import {
  messageCalls,
  StructuredCallAssembler,
  type AssembledCall,
} from './structured-call-assembler.js';

/** Every call assembled from `chunks` (each a `delta.tool_calls` array), in order. */
function assemble(chunks: unknown[][]): Pick<AssembledCall, 'id' | 'name' | 'arguments'>[] {
  const assembler = new StructuredCallAssembler();
  const calls = [...chunks.flatMap((c) => assembler.add(c)), ...assembler.finish()];
  return calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args }));
}

const start = (id: string | undefined, name: string, args = '') => ({
  index: 0,
  ...(id && { id }),
  type: 'function',
  function: { name, arguments: args },
});
const more = (args: string, index = 0) => ({ index, function: { arguments: args } });

describe('StructuredCallAssembler', () => {
  it("takes a numbered call's id as its digits, and an id or name of another type as none", () => {
    // The id goes to the client (`tool_call`) and back to the server (`tool_call_id`) as a string.
    expect(
      assemble([
        [{ index: 0, id: 5, function: { name: 'get_weather', arguments: '{"city":' } }],
        [{ index: 0, id: 5, function: { arguments: '"Lima"}' } }],
        [{ index: 1, id: { x: 1 }, function: { name: 'get_time', arguments: '{}' } }],
        [{ index: 2, id: 'c', function: { name: 7, arguments: '{}' } }],
      ]),
    ).toEqual([
      { id: '5', name: 'get_weather', arguments: '{"city":"Lima"}' },
      { id: undefined, name: 'get_time', arguments: '{}' },
    ]);
    expect(
      messageCalls([{ id: 9, function: { name: 'get_time', arguments: '{}' } }]).map((c) => c.id),
    ).toEqual(['9']);
  });

  it('tells parallel calls apart when the server gives them all index 0 (Ollama, Responses API bridges)', () => {
    expect(
      assemble([
        [start('call_a', 'file_write', '{"filePath":')],
        [more('"hello.py"}')],
        [start('call_b', 'file_write', '{"filePath":')],
        [more('"world.py"}')],
      ]),
    ).toEqual([
      { id: 'call_a', name: 'file_write', arguments: '{"filePath":"hello.py"}' },
      { id: 'call_b', name: 'file_write', arguments: '{"filePath":"world.py"}' },
    ]);
    // Without ids, another name at the same index starts another call.
    expect(
      assemble([
        [start(undefined, 'get_time', '{}')],
        [start(undefined, 'get_weather', '{"city":"Rome"}')],
      ]),
    ).toEqual([
      { id: undefined, name: 'get_time', arguments: '{}' },
      { id: undefined, name: 'get_weather', arguments: '{"city":"Rome"}' },
    ]);
  });

  it("follows a call whose fragments change index (SGLang's first fragment at the tool's index)", () => {
    expect(
      assemble([
        [{ ...start('call_m', 'multiply'), index: 1 }],
        [more('{"a": 3, ')],
        [more('"b": 12}')],
        [start('call_a', 'add')],
        [more('{"a": 11, "b": 49}', 1)],
        [{ index: 1, id: 'call_a', function: { arguments: '' } }],
      ]),
    ).toEqual([
      { id: 'call_m', name: 'multiply', arguments: '{"a": 3, "b": 12}' },
      { id: 'call_a', name: 'add', arguments: '{"a": 11, "b": 49}' },
    ]);
  });

  it('keeps one call whose fragments repeat its id or name, or trail with empty arguments (vLLM)', () => {
    const expected = [{ id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' }];
    expect(
      assemble([
        [start('call_a', 'get_weather', '{"city":')],
        [
          {
            ...start('call_a', 'get_weather'),
            function: { name: 'get_weather', arguments: '"Paris"}' },
          },
        ],
        [more('')],
      ]),
    ).toEqual(expected);
    expect(
      assemble([
        [start(undefined, 'get_weather', '{"city":')],
        [{ index: 0, function: { name: 'get_weather', arguments: '"Paris"}' } }],
      ]),
    ).toEqual([{ ...expected[0], id: undefined }]);
  });

  it('reads arguments a server restates whole in every fragment, or once more at the end', () => {
    const expected = [{ id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' }];
    expect(
      assemble([
        [start('call_a', 'get_weather', '{"ci')],
        [more('{"city":"Pa')],
        [more('{"city":"Paris"}')],
      ]),
    ).toEqual(expected);
    expect(
      assemble([
        [start('call_a', 'get_weather', '{"city":')],
        [more('"Paris"}')],
        [{ ...start('call_a', 'get_weather', '{"city":"Paris"}') }],
      ]),
    ).toEqual(expected);
  });

  it('keeps calls with distinct indexes apart, in the order they started', () => {
    expect(
      assemble([
        [start('a', 'first', '{}'), { ...start('b', 'second', '{"x":'), index: 1 }],
        [more('1}', 1)],
      ]).map((c) => [c.id, c.arguments]),
    ).toEqual([
      ['a', '{}'],
      ['b', '{"x":1}'],
    ]);
  });

  it('takes an id that comes after the call began, on its own fragment', () => {
    expect(
      assemble([
        [start(undefined, 'get_time')],
        [{ index: 0, id: 'call_1', function: { arguments: '{}' } }],
      ]),
    ).toEqual([{ id: 'call_1', name: 'get_time', arguments: '{}' }]);
  });

  it('continues the last call with fragments that give no index, the name after the id included', () => {
    expect(
      assemble([
        [{ id: 'call_1' }],
        [{ function: { name: 'get_weather' } }],
        [{ function: { arguments: '{"city":' } }],
        [{ function: { arguments: '"Oslo"}' } }],
        [{ id: 'call_2', function: { name: 'get_time', arguments: '{}' } }],
      ]),
    ).toEqual([
      { id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { id: 'call_2', name: 'get_time', arguments: '{}' },
    ]);
  });

  it('starts the next call, without indexes, at another id even before its name, or at a second name', () => {
    expect(
      assemble([
        [{ id: 'call_1', function: { name: 'get_weather', arguments: '{}' } }],
        [{ id: 'call_2', function: { arguments: '' } }],
        [{ function: { name: 'get_time', arguments: '{}' } }],
      ]),
    ).toEqual([
      { id: 'call_1', name: 'get_weather', arguments: '{}' },
      { id: 'call_2', name: 'get_time', arguments: '{}' },
    ]);
    expect(
      assemble([
        [{ function: { name: 'get_weather', arguments: '{}' } }],
        [{ function: { name: 'get_time', arguments: '{}' } }],
      ]),
    ).toEqual([
      { id: undefined, name: 'get_weather', arguments: '{}' },
      { id: undefined, name: 'get_time', arguments: '{}' },
    ]);
  });

  it('continues a call by its id whatever index the fragment gives, and never changes a call once reported', () => {
    expect(
      assemble([
        [start('call_x', 'add', '{"a":')],
        [{ index: 1, id: 'call_x', function: { arguments: '1}' } }],
      ]),
    ).toEqual([{ id: 'call_x', name: 'add', arguments: '{"a":1}' }]);
    const assembler = new StructuredCallAssembler();
    assembler.add([start('call_a', 'add', '{"a":1}')]);
    const [reported] = assembler.add([{ ...start('call_b', 'mul', '{}'), index: 1 }]);
    assembler.add([{ index: 0, id: 'call_a', function: { arguments: ', "late": 2}' } }]);
    expect(reported).toMatchObject({ id: 'call_a', arguments: '{"a":1}' });
    expect(assembler.finish()).toMatchObject([{ id: 'call_b', arguments: '{}' }]);
  });

  it('reports no call that never got a name', () => {
    expect(assemble([[more('{"city":"Oslo"}')]])).toEqual([]);
  });
});
