import { inFiles, joinFiles } from './tools-dir.js';

describe('a directory of tools files as one set', () => {
  const dir = '/etc/tools (v2)+';
  const { definitions, parts } = joinFiles([
    { file: `${dir}/a.json`, definitions: [{ name: 'one' }, { name: 'two' }] },
    { file: `${dir}/b.yaml`, definitions: [] },
    { file: `${dir}/c.yml`, definitions: [{ name: 'three' }] },
  ]);

  it("joins the files' arrays in order", () => {
    expect(definitions).toEqual([{ name: 'one' }, { name: 'two' }, { name: 'three' }]);
  });

  it('names the file of each definition a message names, and its place there', () => {
    expect(inFiles(`${dir}: tool #2 'three': field 'name' duplicates tool #1`, dir, parts)).toBe(
      `${dir}/c.yml: tool #0 'three': field 'name' duplicates tool #1 of ${dir}/a.json`,
    );
    expect(inFiles(`${dir}: tool #1 'two': not offered`, dir, parts)).toBe(
      `${dir}/a.json: tool #1 'two': not offered`,
    );
    expect(inFiles(`${dir}: the array holds no tool definition`, dir, parts)).toBe(
      `${dir}: the array holds no tool definition`,
    );
  });

  it('refuses a file whose text is no array, naming it', () => {
    expect(() => joinFiles([{ file: '/d/x.yaml', definitions: { name: 'one' } }])).toThrow(
      '/d/x.yaml: expected a JSON array of tool definitions',
    );
  });
});
