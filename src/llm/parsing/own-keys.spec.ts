import { decodeContent, piecesOf } from '../../../test/support/decode.js';

const schemas = new Map([
  [
    'get_weather',
    { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string' } } },
  ],
]);

// A model can name an argument anything; read from text, `__proto__` once replaced the prototype
// of the arguments object (the argument vanished, and the object inherited the values it held).
describe('argument names that are special in JavaScript', () => {
  it.each([
    [
      'Qwen3-Coder XML',
      '<tool_call><function=get_weather><parameter=location>Seoul</parameter><parameter=__proto__>{"unit":"f"}</parameter></function></tool_call>',
      '{"unit":"f"}',
    ],
    [
      'JSON arguments in a function tag',
      '<tool_call><function=get_weather>{"location":"Seoul","__proto__":{"unit":"f"}}</function></tool_call>',
      { unit: 'f' },
    ],
    [
      'GLM',
      '<tool_call>get_weather<arg_key>location</arg_key><arg_value>Seoul</arg_value><arg_key>__proto__</arg_key><arg_value>{"unit":"f"}</arg_value></tool_call>',
      { unit: 'f' },
    ],
    ['pythonic', '[get_weather(location="Seoul", __proto__={"unit": "f"})]', { unit: 'f' }],
  ])(
    'are kept as arguments of that name (%s), fed whole or a character at a time',
    (_, text, value) => {
      for (const size of [1, 1000]) {
        const [[name, args]] = decodeContent(schemas, piecesOf(text, size)).calls as [
          [string, Record<string, unknown>],
        ];
        expect(name).toBe('get_weather');
        expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
        expect(Object.keys(args)).toEqual(['location', '__proto__']);
        expect(Object.getOwnPropertyDescriptor(args, '__proto__')?.value).toEqual(value);
        expect(args.unit).toBeUndefined();
      }
    },
  );
});
