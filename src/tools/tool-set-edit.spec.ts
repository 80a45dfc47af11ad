import type { Tool } from './tool-definition.js';
import { changesOf, withTool, withoutTool } from './tool-set-edit.js';

const tool = (name: string) =>
  ({ name, raw: { name, url: `http://h/${name}` } }) as unknown as Tool;
const set = [tool('a'), tool('b'), tool('c')];

describe('one tool edited in a set', () => {
  it('replaces a definition in its place, keeping the others as they are', () => {
    const edited = withTool(set, 'b', { name: 'b', url: 'http://h/new' });
    expect(edited.definitions).toEqual([
      set[0]!.raw,
      { name: 'b', url: 'http://h/new' },
      set[2]!.raw,
    ]);
    expect([...edited.kept]).toEqual([0, 2]);
  });

  it('adds a definition after the others, all of them kept', () => {
    const edited = withTool(set, 'd', { name: 'd' });
    expect(edited.definitions).toEqual([...set.map((t) => t.raw), { name: 'd' }]);
    expect([...edited.kept]).toEqual([0, 1, 2]);
  });

  it('removes a definition, the rest kept in their new places; nothing for a name not there', () => {
    const edited = withoutTool(set, 'a')!;
    expect(edited.definitions).toEqual([set[1]!.raw, set[2]!.raw]);
    expect([...edited.kept]).toEqual([0, 1]);
    expect(withoutTool(set, 'z')).toBeUndefined();
  });
});

describe('what a new set changes, for the log', () => {
  it('names the tools added, changed and removed, or says nothing changed', () => {
    const changedB = { name: 'b', raw: { name: 'b', url: 'http://h/new' } } as unknown as Tool;
    expect(changesOf(set, [set[0]!, changedB, tool('d'), tool('e')])).toBe(
      'added d, e; changed b; removed c',
    );
    expect(changesOf(set, [tool('a'), tool('b'), tool('c')])).toBe('no definition changed');
    expect(changesOf([], set)).toBe('added a, b, c');
    expect(changesOf(set, [])).toBe('removed a, b, c');
  });
});
