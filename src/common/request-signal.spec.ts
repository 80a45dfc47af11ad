import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { followingSignal, followSignals } from './request-signal.js';

describe('followingSignal', () => {
  let server: Server;
  let url: string;
  /**
   * Answers `/slow` a second late (a part at once), `/accepted` 202 with no body, `/broken` with a
   * part then a lost connection, anything else at once.
   */
  beforeAll(async () => {
    server = createServer((req, res) => {
      // An MCP server's answer to a notification: accepted, no body.
      if (req.url === '/accepted') return void res.writeHead(202).end();
      if (req.url === '/broken') {
        res.write('a part, then the connection is lost');
        setTimeout(() => res.destroy(), 50).unref();
        return;
      }
      if (req.url === '/slow') {
        res.write('first ');
        setTimeout(() => res.end('last'), 1000).unref();
        return;
      }
      res.end(`answer to ${req.url}`);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((done) => server.close(done));
  });

  it('leaves no listener on a long-lived signal once each answer is read', async () => {
    const session = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const fetchOwn = followingSignal(fetch);
    try {
      for (let i = 0; i < 60; i++) {
        const response = await fetchOwn(`${url}/${i}`, { signal: session.signal });
        expect(response.status).toBe(200);
        expect(await response.text()).toBe(`answer to /${i}`);
      }
      expect(getEventListeners(session.signal, 'abort')).toHaveLength(0);
      // fetch itself keeps one for each request not yet collected.
      await (await fetch(`${url}/plain`, { signal: session.signal })).text();
      expect(getEventListeners(session.signal, 'abort')).toHaveLength(1);
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('aborts a request in flight with the long-lived signal, and its reading', async () => {
    const session = new AbortController();
    const fetchOwn = followingSignal(fetch);
    const response = await fetchOwn(`${url}/slow`, { signal: session.signal });
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(1);
    const reading = response.text();
    setTimeout(() => session.abort(new Error('session closed')), 50);
    await expect(reading).rejects.toThrow();
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0);
    // One asked after: refused at once.
    await expect(fetchOwn(`${url}/late`, { signal: session.signal })).rejects.toThrow(
      'session closed',
    );
  });

  it('takes its listener off when an answer is cancelled unread, as the MCP SDK does with a 202', async () => {
    const session = new AbortController();
    const fetchOwn = followingSignal(fetch);
    for (let i = 0; i < 20; i++) {
      const response = await fetchOwn(`${url}/accepted`, { signal: session.signal });
      expect(response.status).toBe(202);
      await response.body?.cancel();
    }
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0);
  });

  it('takes its listener off when an answer breaks off while it is read', async () => {
    const session = new AbortController();
    const fetchOwn = followingSignal(fetch);
    const response = await fetchOwn(`${url}/broken`, { signal: session.signal });
    await expect(response.text()).rejects.toThrow();
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0);
  });

  it('takes its listener off when the request fails', async () => {
    const session = new AbortController();
    const fetchOwn = followingSignal(fetch);
    await expect(fetchOwn('http://127.0.0.1:9/', { signal: session.signal })).rejects.toThrow();
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0);
  });
});

describe('followSignals', () => {
  it('aborts with the first of its signals to abort, and its reason', () => {
    const [turn, deadline] = [new AbortController(), new AbortController()];
    const { controller } = followSignals([turn.signal, undefined, deadline.signal]);
    deadline.abort(new Error('time over'));
    turn.abort(new Error('cut short'));
    expect((controller.signal.reason as Error).message).toBe('time over');
  });

  it('is aborted at once by a signal aborted already, and leaves no listener once released', () => {
    const [gone, turn] = [new AbortController(), new AbortController()];
    gone.abort(new Error('gone'));
    expect(followSignals([gone.signal]).controller.signal.aborted).toBe(true);
    const { controller, release } = followSignals([turn.signal]);
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(1);
    release();
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
    turn.abort();
    expect(controller.signal.aborted).toBe(false);
  });
});
