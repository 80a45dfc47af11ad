/**
 * `npm run eval`'s connection to the engine's `/ws`: opened as any client opens it, its messages
 * read one after another. Pure: no Nest import.
 */
import WebSocket from 'ws';

/** The fields of the engine's messages that a run reads (see asyncapi.json for all of them). */
export interface Message {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  arguments?: Record<string, unknown>;
  code?: string;
  message?: string;
  model_error?: string;
  settings?: SessionSettings;
  audio_format?: unknown;
  timings?: Record<string, unknown>;
}

/** What a run needs to know of the session's settings (`session`, `session.updated`). */
export interface SessionSettings {
  modality?: string;
  tts?: boolean;
  vad_silence_ms?: number;
}

/** A connection's messages, read one after another; binary frames (speech) as `audio`. */
export class Inbox {
  private readonly queue: Message[] = [];
  private waiter: ((m: Message | undefined) => void) | undefined;
  closed: string | undefined;

  constructor(socket: WebSocket) {
    socket.on('message', (data, binary) => {
      let message: Message;
      try {
        // A voice session's speech, sent as binary frames (`"audio": "binary"`).
        message = binary
          ? { type: 'audio' }
          : (JSON.parse((data as Buffer).toString('utf8')) as Message);
      } catch {
        return;
      }
      this.queue.push(message);
      this.wake();
    });
    // An error (a reset) is followed by `close`, which says it: not thrown as an unhandled event.
    socket.on('error', () => undefined);
    socket.on('close', (code, reason) => {
      this.closed = `the engine closed the connection (${code}${reason.length ? ` ${reason.toString()}` : ''})`;
      this.wake();
    });
  }

  private wake() {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(this.queue.shift());
  }

  /** The next message, or undefined once `deadline` has passed or the connection closed. */
  next(deadline: number): Promise<Message | undefined> {
    if (this.queue.length > 0) return Promise.resolve(this.queue.shift());
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => ((this.waiter = undefined), resolve(undefined)),
        deadline - Date.now(),
      );
      this.waiter = (m) => (clearTimeout(timer), resolve(m));
    });
  }

  /** Reads on until nothing has come for `quietMs` (or `deadline`): what the engine had left to say. */
  async settle(quietMs: number, deadline: number): Promise<void> {
    while ((await this.next(Math.min(deadline, Date.now() + quietMs))) !== undefined);
  }
}

export interface SocketOptions {
  /** `ws://host:8787/ws`. */
  url: string;
  /** WS_API_KEY, sent as `Authorization: Bearer`. */
  key?: string;
  /** How long the upgrade may take. */
  timeoutMs: number;
}

/** The connection, read from its start (its first frame may come with the upgrade's answer). */
export function openSocket(options: SocketOptions): Promise<{ socket: WebSocket; inbox: Inbox }> {
  const headers = options.key ? { Authorization: `Bearer ${options.key}` } : undefined;
  const socket = new WebSocket(options.url, { headers, handshakeTimeout: options.timeoutMs });
  const inbox = new Inbox(socket);
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, inbox }));
    socket.once('unexpected-response', (req, res) => {
      // Listened to, the refused upgrade is ws' to end no more: its request is let go here.
      req.destroy();
      reject(new Error(`the upgrade was refused: HTTP ${res.statusCode}`));
    });
    socket.once('error', reject);
  });
}
