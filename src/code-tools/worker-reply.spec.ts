import { distrust, readReply } from './worker-reply.js';

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
