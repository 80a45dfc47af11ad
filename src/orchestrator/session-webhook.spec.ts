import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliver, reportOf, signature } from './session-webhook.js';
import { Session } from './session.js';

describe('end-of-session reports', () => {
  let server: Server;
  let url = '';
  const answers: number[] = [];
  let asked = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      asked++;
      req.resume();
      res.writeHead(answers.shift() ?? 200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/r`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    asked = 0;
    answers.length = 0;
  });
  const report = reportOf(
    new Session(),
    { openedAt: 0, endedAt: 1500 },
    { closeCode: 1000, reason: 'client' },
    false,
  );

  it('reports a session: its times, turns, assistant and settings without variables', () => {
    const billing = new Session();
    billing.agent = { via: 'to_billing', name: 'billing', instructions: '' };
    const times = { openedAt: 0, endedAt: 1 };
    const closed = { closeCode: 1000, reason: 'client' };
    expect(reportOf(billing, times, closed, false).agent).toBe('billing');
    expect(report).toMatchObject({
      agent: null,
      opened_at: '1970-01-01T00:00:00.000Z',
      duration_secs: 1.5,
      close_code: 1000,
      end_reason: 'client',
      resumable: false,
      turns: 0,
      settings: expect.objectContaining({ variables: [], client_tools: [] }),
    });
  });

  it('gives up at once on a refusal that a retry cannot change (4xx but 429)', async () => {
    answers.push(400);
    expect(await deliver(url, '', report, 1)).toEqual({ ok: false, why: 'HTTP 400' });
    expect(asked).toBe(1);
  });

  it('tries three times in all after 5xx and 429, then says why', async () => {
    answers.push(503, 429, 502);
    expect(await deliver(url, '', report, 1)).toEqual({ ok: false, why: 'HTTP 502 (3 attempts)' });
    expect(asked).toBe(3);
    answers.push(503);
    expect(await deliver(url, 's', report, 1)).toEqual({ ok: true });
  });

  it('says a receiver that cannot be reached by its code', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    expect(await deliver(`http://127.0.0.1:${port}/r`, '', report, 1)).toEqual({
      ok: false,
      why: 'ECONNREFUSED (3 attempts)',
    });
  });

  it('signs the time and the body', () => {
    expect(signature('k', '{}', 1700000000)).toBe(
      't=1700000000,v1=' +
        // HMAC-SHA256("1700000000.{}", "k")
        createHmac('sha256', 'k').update('1700000000.{}').digest('hex'),
    );
  });
});
