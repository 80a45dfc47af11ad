import { Logger } from '@nestjs/common';
import { createClient, TimeoutError, TimeoutReadError } from '@redis/client';
import type { Broadcast, Claim, Save, SharedScripts } from './session-store.js';
import { SessionStore } from './session-store.js';
import { SessionsFanout } from './sessions-fanout.js';
import { AnswerWatch } from './answer-watch.js';

const PREFIX = 'agent-engine:session:';
/**
 * The longest wait between reconnect attempts while Redis is away: short, so that sessions are
 * kept again soon after it is back, and so that a closed store's last wait (which the client
 * cannot cancel) does not hold the process.
 */
const RECONNECT_MAX_MS = 400;

/** Returns the record and makes `owner` its holder, atomically. */
const CLAIM = `
local data = redis.call('HGET', KEYS[1], 'data')
if not data then return false end
redis.call('HSET', KEYS[1], 'owner', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return data`;

/** Writes the record unless another owner holds it, atomically. */
const SAVE = `
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner and owner ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'data', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1`;

/** Deletes the record unless another owner holds it, atomically. */
const FORGET = `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

/**
 * Sessions in Redis, shared by every engine process and replica: a client that reconnects to
 * any of them resumes. While Redis is unreachable, commands fail at once (no offline queue)
 * and sessions simply start afresh; the client reconnects in the background.
 */
export class RedisSessionStore extends SessionStore {
  readonly kind = 'redis' as const;
  readonly shared = true;
  private readonly client;
  /** A connection of its own for `/api/sessions`' requests and replies (see SessionsFanout) and news. */
  private readonly subscriber;
  private subscriberConnected: Promise<void> | undefined;
  override readonly fanout: SessionsFanout;
  override readonly broadcast: Broadcast;
  override readonly scripts: SharedScripts = {
    run: (script, keys, args) => this.eval(script, keys, args),
  };
  private readonly watch = new AnswerWatch(
    () => this.client.ping(),
    (error) => error instanceof TimeoutError || error instanceof TimeoutReadError,
  );

  /**
   * `url`: SESSION_STORE_URL as it is now; its credentials are read again at each connection (a
   * password rotated in its file, SECRET_FILES_WATCH_SECS), its server once.
   */
  constructor(
    url: string | (() => string),
    private readonly onError: (error: Error) => void,
    private readonly timeoutMs = 2000,
  ) {
    super();
    const current = typeof url === 'string' ? () => url : url;
    // The server without the credentials: node-redis would take the URL's over the provider's.
    const server = new URL(current());
    server.username = '';
    server.password = '';
    this.client = createClient({
      url: server.toString(),
      credentialsProvider: {
        type: 'async-credentials-provider',
        credentials: () => Promise.resolve(credentialsOf(current())),
      },
      disableOfflineQueue: true,
      // A Redis that takes a command and never answers (frozen, a network that drops packets)
      // fails it like one that is away, rather than holding a resume or a tool call for ever.
      commandOptions: { timeout: timeoutMs, rejectInFlight: true },
      socket: {
        connectTimeout: timeoutMs,
        reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, RECONNECT_MAX_MS),
      },
    });
    this.client.on('error', onError);
    this.subscriber = this.client.duplicate();
    this.subscriber.on('error', onError);
    // One subscribed connection for the fan-out and the news, connected by the first to need it.
    const subscribed = () =>
      (this.subscriberConnected ??= this.subscriber.connect().then(() => undefined));
    const publisher = {
      publish: (channel: string, message: string) =>
        this.watch.run(() => this.client.publish(channel, message)),
      subscribe: (channel: string, listener: (message: string) => void) =>
        this.client.subscribe(channel, listener),
    };
    this.fanout = new SessionsFanout(publisher, this.subscriber, subscribed);
    this.broadcast = {
      publish: async (channel, message) => void (await publisher.publish(channel, message)),
      subscribe: async (channel, listener) => {
        await subscribed();
        // A listener's fault must not reach the client reading Redis's answers.
        await this.subscriber.subscribe(channel, (message) => {
          try {
            listener(message);
          } catch (error) {
            new Logger('SessionStore').error(
              `a message on ${channel} was not read: ${(error as Error).stack}`,
            );
          }
        });
      },
    };
  }

  /**
   * Starts connecting; settles once connected, or after `timeoutMs` with Redis still away (the
   * client keeps trying in the background), so that start-up never hangs on Redis.
   */
  async connect(timeoutMs = 2000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const connected = this.client.connect().then(
      () => undefined,
      (error: unknown) => this.onError(error as Error),
    );
    await Promise.race([connected, new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
  }

  /** Connected, and answering (a frozen Redis keeps its connections open). */
  get connected(): boolean {
    return this.client.isReady && this.watch.ok;
  }

  async claim({ key, owner, ttlSecs }: Claim): Promise<string | undefined> {
    const data = await this.eval(CLAIM, [PREFIX + key], [owner, String(ttlSecs)]);
    return typeof data === 'string' ? data : undefined;
  }

  async save({ key, owner, data, ttlSecs }: Save): Promise<boolean> {
    return (await this.eval(SAVE, [PREFIX + key], [owner, data, String(ttlSecs)])) === 1;
  }

  async forget({ key, owner }: Omit<Claim, 'ttlSecs'>): Promise<void> {
    await this.eval(FORGET, [PREFIX + key], [owner]);
  }

  private eval(script: string, keys: string[], args: string[]): Promise<unknown> {
    return this.watch.run(() => this.client.eval(script, { keys, arguments: args }));
  }

  /**
   * Closes both connections once the commands under way are answered, for at most
   * `timeoutMs`: Redis gone or frozen as the engine stops never answers them, and the client's
   * own close would wait for ever.
   */
  async close(): Promise<void> {
    this.watch.stop();
    await Promise.all([this.subscriber, this.client].map((c) => closeWithin(c, this.timeoutMs)));
  }
}

interface Closable {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  close(): Promise<void>;
  destroy(): void;
}

async function closeWithin(client: Closable, ms: number): Promise<void> {
  if (!client.isReady) {
    if (client.isOpen) client.destroy();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    client.close().then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  if (!closed) client.destroy();
}

/** The user and password a Redis URL holds (`redis://user:pass@host`), decoded. */
function credentialsOf(url: string): { username?: string; password?: string } {
  const { username, password } = new URL(url);
  return {
    ...(username && { username: decodeURIComponent(username) }),
    ...(password && { password: decodeURIComponent(password) }),
  };
}
