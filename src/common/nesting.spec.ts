import { nestedDeeper, textNestedDeeper } from './nesting.js';

const nest = (levels: number) => JSON.parse('['.repeat(levels) + ']'.repeat(levels)) as unknown;

describe('nestedDeeper', () => {
  it('counts the levels of arrays and objects, scalars none', () => {
    expect(nestedDeeper('text', 0)).toBe(false);
    expect(nestedDeeper({}, 0)).toBe(true);
    expect(nestedDeeper({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(nestedDeeper({ a: [1, { b: 2 }] }, 2)).toBe(true);
    expect(nestedDeeper({ a: 1, b: [[[]]] }, 4)).toBe(false);
    expect(nestedDeeper({ a: 1, b: [[[]]] }, 3)).toBe(true);
    expect(nestedDeeper(nest(64), 64)).toBe(false);
    expect(nestedDeeper(nest(65), 64)).toBe(true);
  });

  it('walks a value far too deep for recursion', () => {
    expect(nestedDeeper(nest(200_000), 64)).toBe(true);
  });
});

describe('textNestedDeeper', () => {
  it('counts the levels of JSON text as nestedDeeper counts its value, brackets in strings not', () => {
    const text = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    expect(textNestedDeeper(text(64), 64)).toBe(false);
    expect(textNestedDeeper(text(65), 64)).toBe(true);
    expect(textNestedDeeper('{"a":[1,{"b":2}],"c":{}}', 3)).toBe(false);
    expect(textNestedDeeper('{"a":[1,{"b":2}],"c":{}}', 2)).toBe(true);
    expect(textNestedDeeper('{"a":"[[[[\\"[[["}', 1)).toBe(false);
    expect(textNestedDeeper('"text"', 0)).toBe(false);
  });
});
