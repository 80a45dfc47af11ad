import { compactJson } from './compact-json.js';
import { resultText } from './tool-errors.js';

describe('compactJson', () => {
  it('drops the whitespace between tokens, never inside strings', () => {
    const pretty = JSON.stringify(
      { name: 'Ann  Lee', note: 'line one\nline two', tags: ['a b', 'c'], nested: { ok: true } },
      null,
      2,
    );
    expect(compactJson(pretty)).toBe(
      '{"name":"Ann  Lee","note":"line one\\nline two","tags":["a b","c"],"nested":{"ok":true}}',
    );
    // Escaped quotes and backslashes do not end a string early.
    expect(compactJson('[ "say \\"hi there\\"" , "C:\\\\ dir\\\\" ,\t1 ]')).toBe(
      '["say \\"hi there\\"","C:\\\\ dir\\\\",1]',
    );
  });

  it('keeps numbers, keys and their order exactly as written', () => {
    // As Python's json.dumps writes: a space after each separator.
    expect(compactJson('{"id": 12345678901234567890, "z": 1.50, "a": 1e3}')).toBe(
      '{"id":12345678901234567890,"z":1.50,"a":1e3}',
    );
  });

  it('leaves alone text that is no JSON object or array, and JSON already compact', () => {
    for (const text of [
      'Rome: ☀️ +21°C',
      '[1, 2] and some prose',
      '"a string"',
      '42',
      '{not json}',
      '',
    ])
      expect(compactJson(text)).toBe(text);
    const compact = '{"a":[1,2]}';
    expect(compactJson(compact)).toBe(compact);
    expect(compactJson('\n  {"a": 1}\n')).toBe('{"a":1}');
  });

  it('is applied before the cut, so the model reads more of a long indented result', () => {
    const items = Array.from({ length: 50 }, (_, i) => ({ id: i, title: `Issue ${i}` }));
    const read = resultText(JSON.stringify(items, null, 2), 200);
    expect(read.startsWith('[{"id":0,"title":"Issue 0"},{"id":1,')).toBe(true);
    expect(read.endsWith('… [truncated]')).toBe(true);
  });
});
