import { sendWithRetries } from './speech-retry.js';

/** A `send` that answers `outcomes` in turn: a status, or an error thrown. */
function server(...outcomes: (number | Error)[]) {
  let sent = 0;
  const send = () => {
    const outcome = outcomes[Math.min(sent++, outcomes.length - 1)]!;
    if (outcome instanceof Error) return Promise.reject(outcome);
    const headers = outcome === 429 ? { 'Retry-After': '0' } : undefined;
    return Promise.resolve(new Response(`status ${outcome}`, { status: outcome, headers }));
  };
  return { send, sent: () => sent };
}

const refused = () => new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
const timedOut = () =>
  Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
const never = new AbortController().signal;

describe('sendWithRetries', () => {
  it('sends again after a refused connection or an overloaded server, then takes the answer', async () => {
    const s = server(refused(), 503, 429, 200);
    const told: string[] = [];
    const response = await sendWithRetries(s.send, 3, never, (why, n) => told.push(`${n} ${why}`));
    expect(response.status).toBe(200);
    expect(s.sent()).toBe(4);
    expect(told).toEqual(['1 no connection', '2 HTTP 503', '3 HTTP 429']);
  });

  it('gives the last answer, or failure, once the retries are spent', async () => {
    const busy = server(503);
    expect((await sendWithRetries(busy.send, 2, never)).status).toBe(503);
    expect(busy.sent()).toBe(3);
    const down = server(refused());
    await expect(sendWithRetries(down.send, 1, never)).rejects.toThrow('fetch failed');
    expect(down.sent()).toBe(2);
  });

  it('does not send again what another request would not mend: a refusal, a timeout', async () => {
    for (const outcome of [400, 401, 404, 413, timedOut()]) {
      const s = server(outcome, 200);
      const sent = sendWithRetries(s.send, 2, never);
      if (outcome instanceof Error) await expect(sent).rejects.toBe(outcome);
      else expect((await sent).status).toBe(outcome);
      expect(s.sent()).toBe(1);
    }
    const none = server(503, 200);
    expect((await sendWithRetries(none.send, 0, never)).status).toBe(503);
  });

  it('stops waiting when the caller is gone', async () => {
    const controller = new AbortController();
    const s = server(503, 200);
    const sent = sendWithRetries(s.send, 2, controller.signal, () => controller.abort());
    await expect(sent).rejects.toThrow('aborted');
    expect(s.sent()).toBe(1);
  });
});
