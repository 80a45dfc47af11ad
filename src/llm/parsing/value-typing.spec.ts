import { typeValue } from './value-typing.js';

/** How a raw Qwen3-Coder XML value is typed from its parameter's schema (vLLM's rules, NOTES.md §4). */
describe('typeValue', () => {
  it.each(['string', 'str', 'text', 'varchar', 'char', 'enum', 'STRING'])(
    'keeps a %s value as written, even one that reads as a number or null',
    (type) => {
      expect(typeValue('42', { type })).toBe('42');
      expect(typeValue('null', { type })).toBe('null');
      expect(typeValue('  padded ', { type })).toBe('  padded ');
    },
  );

  it('types null only for a nullable string', () => {
    expect(typeValue('None', { anyOf: [{ type: 'string' }, { type: 'null' }] })).toBeNull();
    expect(typeValue('null', { type: ['string', 'null'] })).toBeNull();
    expect(typeValue('text', { type: ['string', 'null'] })).toBe('text');
  });

  it.each(['integer', 'int', 'int64', 'uint32', 'long', 'short', 'unsigned'])(
    'reads a %s as an integer, else keeps the text',
    (type) => {
      expect(typeValue(' 7 ', { type })).toBe(7);
      expect(typeValue('-12', { type })).toBe(-12);
      expect(typeValue('4.5', { type })).toBe('4.5');
      expect(typeValue('None', { type })).toBeNull();
    },
  );

  it.each(['number', 'num', 'float', 'double'])(
    'reads a %s as a number, else keeps the text',
    (type) => {
      expect(typeValue('3.0', { type })).toBe(3);
      expect(typeValue('1e3', { type })).toBe(1000);
      expect(typeValue('abc', { type })).toBe('abc');
      expect(typeValue('', { type })).toBe('');
    },
  );

  it.each(['boolean', 'bool', 'binary'])(
    'reads a %s as true only for "true", in any case',
    (type) => {
      expect(typeValue('True', { type })).toBe(true);
      expect(typeValue('false', { type })).toBe(false);
      expect(typeValue('yes', { type })).toBe(false);
    },
  );

  it.each(['object', 'dict', 'dict[str, int]', 'array', 'arr', 'list', 'list[str]'])(
    'reads a %s as JSON or a Python literal, once more when that gives a string, else keeps the text',
    (type) => {
      expect(typeValue('{"a": [1, true]}', { type })).toEqual({ a: [1, true] });
      expect(typeValue("{'a': True, 'b': None}", { type })).toEqual({ a: true, b: null });
      expect(typeValue('"{\\"a\\": 1}"', { type })).toEqual({ a: 1 });
      expect(typeValue('"not json"', { type })).toBe('not json');
      expect(typeValue('{broken', { type })).toBe('{broken');
    },
  );

  it('takes the first type that is not null from anyOf or a type list', () => {
    expect(typeValue('5', { anyOf: [{ type: 'null' }, { type: 'integer' }] })).toBe(5);
    expect(typeValue('5', { type: ['null', 'string'] })).toBe('5');
    expect(typeValue('[1]', { oneOf: [{ type: 'array' }, { type: 'string' }] })).toEqual([1]);
  });

  it('types an enum or const without a type by its values', () => {
    expect(typeValue('2', { enum: [1, 2, 3] })).toBe(2);
    expect(typeValue('2', { enum: ['1', '2'] })).toBe('2');
    expect(typeValue('True', { const: true })).toBe(true);
    expect(typeValue('fast', { enum: ['fast', null] })).toBe('fast');
  });

  it('reads a value of an unknown type, or with no type, as JSON or a Python literal, else as text', () => {
    expect(typeValue('[1, 2]', { type: 'tuple' })).toEqual([1, 2]);
    expect(typeValue('(1, 2)', {})).toEqual([1, 2]);
    expect(typeValue('plain words', {})).toBe('plain words');
  });

  it('keeps the value as written for a parameter with no schema (undeclared)', () => {
    expect(typeValue('42', undefined)).toBe('42');
  });
});
