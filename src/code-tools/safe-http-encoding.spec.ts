import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { RecordingServer } from '../../test/support/recording-server.js';
import { safeHttp, type PyHttpRequest } from './safe-http.js';

const options = { allowPrivateNetwork: true, timeoutMs: 2000, maxResponseBytes: 1024 };

describe('safeHttp: compressed bodies (Content-Encoding), as requests reads them', () => {
  const server = new RecordingServer();
  let base: string;
  beforeAll(async () => {
    base = await server.start();
  });
  afterAll(() => server.stop());
  const get = (request: Partial<PyHttpRequest> = {}) =>
    safeHttp(
      { method: 'GET', url: `${base}/data`, ...request },
      options,
      new AbortController().signal,
    );
  const answer = (coding: string, body: Buffer) =>
    server.respond((_req, res) =>
      res
        .writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': coding })
        .end(body),
    );
  const json = Buffer.from('{"city":"Zürich","temp":21}');

  it.each([
    ['gzip', gzipSync(json)],
    ['x-gzip', gzipSync(json)],
    ['deflate', deflateSync(json)],
    ['br', brotliCompressSync(json)],
    // Codings applied in turn: the last one is undone first.
    ['deflate, gzip', gzipSync(deflateSync(json))],
    ['identity', json],
  ])('asks for compressed bodies and reads one in %s', async (coding, body) => {
    server.requests.length = 0;
    answer(coding, body);
    const response = await get();
    expect(server.requests[0]!.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(response).toMatchObject({ status_code: 200, text: json.toString() });
    expect(response).not.toHaveProperty('content_b64');
    expect(response.headers['content-encoding']).toBe(coding);
  });

  it('leaves a body in a coding it cannot undo as it came, as requests does', async () => {
    answer('compress', Buffer.from([0x1f, 0x9d, 0x90]));
    expect(Buffer.from((await get()).content_b64 ?? '', 'base64')).toEqual(
      Buffer.from([0x1f, 0x9d, 0x90]),
    );
  });

  it('reads an empty body with a coding named (a HEAD, a 204) as empty', async () => {
    server.respond((_req, res) => res.writeHead(204, { 'Content-Encoding': 'gzip' }).end());
    expect(await get()).toMatchObject({ status_code: 204, text: '' });
    answer('gzip', gzipSync(json));
    expect(await get({ method: 'HEAD' })).toMatchObject({ status_code: 200, text: '' });
  });

  it('fails a body that is not what its coding says with a ContentDecodingError', async () => {
    answer('gzip', json);
    await expect(get()).rejects.toMatchObject({
      kind: 'decoding',
      message: 'Received response with content-encoding: gzip, but failed to decode it.',
    });
  });

  it('reads a small body that decodes to a huge one only to maxResponseBytes', async () => {
    // 64 gzip members of 16 MiB each, read one after the other: 1 GiB from ~1 MiB sent.
    const bomb = Buffer.concat(Array(64).fill(gzipSync(Buffer.alloc(16 * 1024 * 1024, 'a'))));
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    answer('gzip', bomb);
    const used = process.memoryUsage().rss;
    expect((await get()).text).toBe('a'.repeat(1024));
    expect(process.memoryUsage().rss - used).toBeLessThan(256 * 1024 * 1024);
  });

  it('with decode false (urllib), asks for no coding and gives the body as sent', async () => {
    server.requests.length = 0;
    const body = gzipSync(json);
    answer('gzip', body);
    const response = await get({ decode: false });
    expect(server.requests[0]!.headers).not.toHaveProperty('accept-encoding');
    expect(Buffer.from(response.content_b64 ?? '', 'base64')).toEqual(body);
  });
});
