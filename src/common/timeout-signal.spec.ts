import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectGarbage } from '../../test/support/gc.js';
import { withTimeout } from './timeout-signal.js';

/** What became of a request within 3 s: its error's name, or that it still hangs. */
const settled = (request: Promise<unknown>) =>
  Promise.race([
    request.then(
      () => 'answered',
      (error: Error) => error.name,
    ),
    new Promise<string>((resolve) => setTimeout(() => resolve('still waiting'), 3000)),
  ]);

describe('withTimeout', () => {
  // Takes each request and never answers.
  const silent: Server = createServer(() => undefined);
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('ends a request to a server that never answers, a garbage collection meanwhile', async () => {
    const outer = new AbortController();
    const outcomes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const request = fetch(url, { signal: withTimeout(outer.signal, 300) });
      setTimeout(collectGarbage, 50);
      outcomes.push(await settled(request));
    }
    expect(outcomes).toEqual(['TimeoutError', 'TimeoutError', 'TimeoutError']);
  });

  it('ends it at once when the outer signal aborts first, with its reason', async () => {
    const outer = new AbortController();
    const request = fetch(url, { signal: withTimeout(outer.signal, 10_000) });
    setTimeout(() => outer.abort(new Error('the turn was cut')), 50);
    await expect(request).rejects.toThrow('the turn was cut');
  });
});
