import { pointed, pointerToken } from './json-pointer.js';

describe('pointed', () => {
  const doc = { $defs: { 'a/b': { type: 'string' }, 'with space': [1, 2] } };

  it('follows escaped and percent-encoded tokens, into arrays too', () => {
    expect(pointed(doc, '#/$defs/a~1b')).toEqual({ type: 'string' });
    expect(pointed(doc, '#/$defs/with%20space/1')).toBe(2);
    expect(pointed(doc, '#')).toBe(doc);
  });

  it('points to nothing, rather than throwing, for a stray % or a path that is not there', () => {
    expect(pointerToken('bad%')).toBeUndefined();
    expect(pointed(doc, '#/$defs/bad%')).toBeUndefined();
    expect(pointed(doc, '#/$defs/none/deeper')).toBeUndefined();
    expect(pointed(doc, 'other.json#/$defs')).toBeUndefined();
  });
});
