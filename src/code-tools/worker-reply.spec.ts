import { distrust, readReply, withMemoryVerdict } from './worker-reply.js';

describe('readReply', () => {
  it('reads a reply and the state in it (JSON in JSON) once', () => {
    expect(readReply('{"ok":true,"result":"1","state":"{\\"n\\":1}","logs":""}')).toEqual({
      ok: true,
      result: '1',
      state: { n: 1 },
      logs: '',
    });
  });

  it.each([
    ['text that is not JSON', 'patched'],
    ['JSON that is not an object', '[1]'],
    ['null', 'null'],
    ['nothing', undefined],
    ['an unreadable state', '{"ok":true,"result":"1","state":"patched"}'],
    ['a state that is not an object', '{"ok":true,"result":"1","state":"[1]"}'],
    ['a state that is not JSON text', '{"ok":true,"result":"1","state":{"n":1}}'],
  ])('fails the call, without throwing, on %s', (_, text) => {
    expect(readReply(text)).toMatchObject({
      ok: false,
      error: expect.stringContaining("the code tool's reply could not be read"),
    });
  });
});

describe('distrust', () => {
  it('keeps a worker that ran a job cleanly', () => {
    expect(distrust({ type: 'result', memory: 10 }, 64)).toBeUndefined();
  });
  it.each([
    [{ fatal: true }, 'Pyodide fatal error'],
    [{ unrestored: true }, 'could not be undone'],
    [{ capped: true }, 'reached CODE_TOOLS_MEMORY_MB=64'],
    [{ memory: 80 << 20 }, 'grew to 80 MiB'],
  ])('replaces one after %j', (flags, why) => {
    expect(distrust({ type: 'result', ...flags }, 64)).toContain(why);
  });
});

describe('withMemoryVerdict', () => {
  const verdict =
    'Error: MemoryError: the code needed more memory than CODE_TOOLS_MEMORY_MB (64 MiB) allows';
  it.each([
    ['a growth refused, Python raising MemoryError', { capped: true }, false, verdict],
    ['a growth refused, then a smaller one given: no error', { capped: true }, true, undefined],
    ['the process past its memory (files), the job stopped', { overMemory: true }, false, verdict],
    ['a job that ran within its memory', {}, false, 'Error: ValueError: bad'],
  ])('%s', (_, flags: { capped?: boolean; overMemory?: boolean }, ok, error) => {
    const result = ok
      ? { ok: true, result: '1' }
      : { ok: false, error: flags.capped ? 'Error: MemoryError' : 'Error: ValueError: bad' };
    expect(withMemoryVerdict(result, { type: 'result', ...flags }, 64).error).toBe(error);
  });
});
