import { useTwoProcesses } from './support/built-engine.js';
import { EgressProxy } from './support/egress-proxy.js';
import { secretFiles } from './support/secret-files.js';
import { FakeLlm, sseText } from './support/fake-llm.js';
import { until, untilAsync } from './support/waiting.js';
import { WsClient } from './support/ws-client.js';

const secret = secretFiles('engine-secret-rotation-');

/**
 * SECRET_FILES_WATCH_SECS: keys given as files are read again while the engine runs, so that a
 * key rotated in its Secret is used from the next request on, in every process, with no restart;
 * a file emptied or a value that is not valid keeps the one in use. The LLM server is reached
 * through an egress proxy whose credentials rotate too.
 */
describe('secrets rotated in their files (SECRET_FILES_WATCH_SECS)', () => {
  const llm = new FakeLlm();
  const proxy = new EgressProxy({
    hosts: { 'llm.example': '127.0.0.1' },
    credentials: 'engine:one',
  });
  let proxyUrl = '';
  const engine = useTwoProcesses(async () => {
    proxyUrl = await proxy.start('engine:one');
    return {
      LLM_BASE_URL: (await llm.start()).replace('127.0.0.1', 'llm.example'),
      EGRESS_PROXY_FILE: secret('proxy', proxyUrl),
      LLM_MODEL: 'm',
      SECRET_FILES_WATCH_SECS: '0.2',
      ADMIN_API_KEY_FILE: secret('admin', 'admin-1\n'),
      WS_API_KEY_FILE: secret('ws', 'ws-1\n'),
      LLM_API_KEY_FILE: secret('llm', 'sk-1\n'),
      LLM_EXTRA_HEADERS_FILE: secret('llm-headers', '{"x-team":"voice"}'),
    };
  });
  afterAll(() => Promise.all([llm.stop(), proxy.stop()]));

  /** The admin API's answer to `key`, from both processes (connections alternate between them). */
  const admin = async (key: string) => {
    const statuses = new Set<number>();
    for (let i = 0; i < 4; i++)
      statuses.add(
        (await fetch(`${engine().url}/api/tools`, { headers: { Authorization: `Bearer ${key}` } }))
          .status,
      );
    return [...statuses];
  };
  /** The LLM server's headers on a turn of each of two sessions (one per process). */
  const llmHeaders = async (token: string) => {
    const from = llm.requests.length;
    for (let i = 0; i < 2; i++) {
      const client = await WsClient.connect(`${engine().wsUrl}?token=${token}`);
      llm.enqueue(sseText(['Hi.']));
      await client.turn('hello');
      client.close();
    }
    return llm.requests
      .slice(from)
      .map((r) => `${r.headers.authorization} ${String(r.headers['x-team'])}`);
  };
  const refused = (token: string) =>
    WsClient.connect(`${engine().wsUrl}?token=${token}`).then(
      () => false,
      () => true,
    );

  it('uses a rotated key from the next request on, in every process', async () => {
    expect(await admin('admin-1')).toEqual([200]);
    expect(await llmHeaders('ws-1')).toEqual(['Bearer sk-1 voice', 'Bearer sk-1 voice']);

    secret('admin', 'admin-2\n');
    secret('ws', 'ws-2\n');
    secret('llm', 'sk-2\n');
    secret('llm-headers', '{"x-team":"sales"}');
    // Each process reads the files every 0.2 s: one read may fall between two of the writes.
    await until(
      () =>
        ['ADMIN_API_KEY', 'WS_API_KEY', 'LLM_API_KEY', 'LLM_EXTRA_HEADERS'].every(
          (name) => engine().output.split(`${name} changed in its file`).length === 3,
        ),
      'the four rotations in both processes',
    );
    expect(await admin('admin-1')).toEqual([401]);
    expect(await refused('ws-1')).toBe(true);
    expect(await llmHeaders('ws-2')).toEqual(['Bearer sk-2 sales', 'Bearer sk-2 sales']);
    // Said in the log, never the key.
    expect(engine().output).toContain(
      'LLM_API_KEY changed in its file: used from the next request on',
    );
    expect(engine().output).not.toContain('sk-2');
  }, 30_000);

  it('keeps the key in use when its file is emptied or holds no valid value, and says why', async () => {
    secret('llm', '');
    secret('llm-headers', '{"x-team": 7}');
    // A valid value rotated at the same time is taken up all the same.
    secret('admin', 'admin-3\n');
    await untilAsync(
      async () => (await admin('admin-3')).join() === '200',
      'the third admin key in both processes',
    );
    await until(
      () =>
        engine().output.includes('is empty: the value in use is kept') &&
        engine().output.includes(
          'LLM_EXTRA_HEADERS is invalid: the value of x-team must be a string: the value in use is kept',
        ),
      'both warnings',
      10_000,
    );
    expect(await llmHeaders('ws-2')).toEqual(['Bearer sk-2 sales', 'Bearer sk-2 sales']);
    // Said once by each process, not at each of its reads (every 0.2 s).
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(engine().output.split('LLM_EXTRA_HEADERS is invalid').length - 1).toBe(2);
    // Fixed again: taken up.
    secret('llm', 'sk-3');
    secret('llm-headers', '{"x-team":"support"}');
    await untilAsync(
      async () => (await llmHeaders('ws-2')).every((h) => h === 'Bearer sk-3 support'),
      'the mended secrets',
    );
  }, 30_000);

  it("sends the egress proxy's rotated credentials from the next request on, in every process", async () => {
    const basic = (pair: string) => `Basic ${btoa(pair)}`;
    proxy.requests.length = 0;
    await llmHeaders('ws-2');
    expect(proxy.requests.map((r) => r.auth)).toEqual(Array(2).fill(basic('engine:one')));
    proxy.requireCredentials('engine:two');
    secret('proxy', proxyUrl.replace('engine:one', 'engine:two'));
    const said = 'EGRESS_PROXY changed in its file: its credentials sent from the next connection';
    await until(() => engine().output.split(said).length === 3, 'the rotation in both processes');
    proxy.requests.length = 0;
    expect(await llmHeaders('ws-2')).toHaveLength(2);
    expect(proxy.requests.map((r) => r.auth)).toEqual(Array(2).fill(basic('engine:two')));
    expect(engine().output).not.toContain('engine:two');
  }, 30_000);
});
