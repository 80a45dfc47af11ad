import { createClient } from '@redis/client';
import { useBuiltEngines } from './support/built-engine.js';
import { secretFiles } from './support/secret-files.js';
import { FakeLlm, sseText } from './support/fake-llm.js';
import { startRedis, type RedisRun } from './support/redis-server.js';
import { until } from './support/waiting.js';
import { WsClient } from './support/ws-client.js';

const secret = secretFiles('engine-store-rotation-');

/**
 * SESSION_STORE_URL given as a file and watched (SECRET_FILES_WATCH_SECS): Redis's password
 * rotated (Vault's database engine, a Secret updated) is used from the engine's next connection to
 * Redis, so that sessions are still kept and resumed after a reconnect, with no restart.
 */
describe('the session store password rotated in its file', () => {
  const llm = new FakeLlm();
  const startEngine = useBuiltEngines();
  let redis: RedisRun;
  let port = 0;
  const url = (password: string) => `redis://:${password}@127.0.0.1:${port}`;
  beforeAll(async () => {
    redis = await startRedis(undefined, ['--requirepass', 'old-pass']);
    port = Number(new URL(redis.url).port);
  });
  afterAll(async () => {
    await Promise.all([llm.stop(), redis.stop()]);
  });

  /** A command of Redis's operator, with the password of now. */
  async function operator(password: string, command: string[]) {
    const client = createClient({ url: url(password) });
    await client.connect();
    try {
      await client.sendCommand(command);
    } finally {
      await client.close();
    }
  }

  it('keeps and resumes sessions over a reconnect after the password changed', async () => {
    const file = secret('store-url', url('old-pass'));
    const engine = await startEngine({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      SESSION_STORE_URL_FILE: file,
      SECRET_FILES_WATCH_SECS: '0.2',
    });
    const first = await WsClient.connect(engine.wsUrl);
    const token = String((await first.waitFor((m) => m.type === 'session')).resume_token);
    llm.enqueue(sseText(['Noted.']));
    await first.turn('My order is 42.');
    first.close();

    // The password rotated: Redis takes the new one only, the file says it.
    await operator('old-pass', ['CONFIG', 'SET', 'requirepass', 'new-pass']);
    secret('store-url', url('new-pass'));
    await until(
      () => engine.output.includes('SESSION_STORE_URL changed in its file'),
      'the file read again',
    );
    expect(engine.output).not.toContain('new-pass');
    // Redis drops the engine's connections (a restart, a failover): it connects again.
    await operator('new-pass', ['CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes']);
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const again = await WsClient.connect(`${engine.wsUrl}?resume=${encodeURIComponent(token)}`);
    expect(await again.waitFor((m) => m.type === 'session')).toMatchObject({ resumed: true });
    llm.enqueue(sseText(['Order 42, yes.']));
    await again.turn('Which order?');
    expect(llm.requests.at(-1)!.body.messages.map((m: { content: string }) => m.content)).toContain(
      'My order is 42.',
    );
    again.close();
    expect(engine.output).not.toContain('WRONGPASS');
  }, 30_000);
});
