import { connect } from 'node:net';
import { once } from 'node:events';
import { Engine } from './support/engine.js';
import { useFakeLlm } from './support/fake-llm.js';

/**
 * POSTs `size` bytes of body to `path` as a client that reads the answer only once it has sent
 * the whole body (Python's requests, most scripts): the answer it reads, or the error it met.
 */
async function sendAllThenRead(url: string, path: string, size: number): Promise<string> {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  await once(socket, 'connect');
  let answer = '';
  let failed: Error | undefined;
  socket.on('data', (d: Buffer) => (answer += d.toString()));
  socket.on('error', (error) => (failed = error));
  const closed = once(socket, 'close');
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
  );
  const piece = Buffer.alloc(64 * 1024, 0x20);
  for (let sent = 0; sent < size && !failed; sent += piece.length) {
    if (!socket.write(piece.subarray(0, Math.min(piece.length, size - sent))))
      await Promise.race([once(socket, 'drain'), closed]);
  }
  await closed;
  return failed ? `failed: ${failed.message}` : answer;
}

describe('a body over the HTTP API’s limit, still being sent', () => {
  const { url } = useFakeLlm();
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({ LLM_BASE_URL: url(), LLM_MODEL: 'm' });
  });
  afterAll(() => engine?.stop());

  it('is answered 413, which the client reads rather than a connection reset', async () => {
    const answer = await sendAllThenRead(engine.httpUrl, '/api/tools', 12 * 1024 * 1024);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/^connection: close\r$/im);
    expect(answer).toContain('"message":"request body is larger than 4194304 bytes"');
  });
});
