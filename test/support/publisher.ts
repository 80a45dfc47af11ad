import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A service publishing a document at `url` (an OpenAPI document) that is down until `up` is set:
 * each connection dropped unanswered. Its port stays the block's from before its first test to
 * after its last (a port freed and listened on again later could be taken meanwhile by a test
 * file running beside). Register it before the rig whose tools name its `url`.
 */
export function useDownPublisher(document: () => string | Buffer): { up: boolean; url: string } {
  const state = { up: false, url: '' };
  const server = createServer((req, res) =>
    state.up ? res.end(document()) : req.socket.destroy(),
  );
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/openapi.yaml`;
  });
  afterAll(() => new Promise((r) => server.close(r)));
  return state;
}
