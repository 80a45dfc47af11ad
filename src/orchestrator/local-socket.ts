/**
 * Two ends of a connection within the process, each with the part of `ws`'s WebSocket API that
 * the gateway and the Twilio bridge use (send, close, terminate, pause, resume, readyState and
 * the `open`, `message` and `close` events): a call's bridge reaches its session without a
 * loopback socket, its frames' framing and parsing, or a system call a frame. Messages arrive
 * as `ws` delivers them: in order, on a later turn of the event loop, as Buffers with whether
 * they were binary. Pure: no Nest import.
 */
import { EventEmitter } from 'node:events';

export class LocalSocket extends EventEmitter {
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readonly CLOSING = 2;
  readonly CLOSED = 3;
  readyState = 0;
  /** Nothing waits to be written: a message is the peer's at once. */
  readonly bufferedAmount = 0;
  isPaused = false;
  closedWith?: number;
  private peer!: LocalSocket;
  private inbox: [Buffer, boolean][] = [];
  private delivering = false;

  /** Two connected ends: `server` open at once, `client` open (its `open` event) a turn later. */
  static pair(): { client: LocalSocket; server: LocalSocket } {
    const client = new LocalSocket();
    const server = new LocalSocket();
    client.peer = server;
    server.peer = client;
    server.readyState = server.OPEN;
    setImmediate(() => {
      if (client.readyState !== client.CONNECTING) return;
      client.readyState = client.OPEN;
      client.emit('open');
    });
    return { client, server };
  }

  send(data: string | Buffer, options?: { binary?: boolean }): void {
    if (this.readyState !== this.OPEN && this.readyState !== this.CONNECTING) return;
    const binary = options?.binary ?? typeof data !== 'string';
    this.peer.receive(typeof data === 'string' ? Buffer.from(data) : data, binary);
  }

  pause(): void {
    this.isPaused = true;
  }

  resume(): void {
    this.isPaused = false;
    this.deliver();
  }

  /** Closes both ends: each gets its `close` event (`code`, `reason`) a turn later. */
  close(code = 1000, reason = ''): void {
    if (this.readyState === this.CLOSING || this.readyState === this.CLOSED) return;
    for (const end of [this, this.peer]) end.readyState = end.CLOSING;
    setImmediate(() => {
      for (const end of [this, this.peer]) {
        end.readyState = end.CLOSED;
        end.emit('close', code, Buffer.from(reason));
      }
    });
  }

  /** As a connection lost: 1006. */
  terminate(): void {
    this.close(1006);
  }

  /** Nothing to keep alive within the process. */
  ping(): void {}

  private receive(data: Buffer, binary: boolean): void {
    this.inbox.push([data, binary]);
    this.deliver();
  }

  /** Hands over what has arrived, on the next turn of the event loop, unless paused. */
  private deliver(): void {
    if (this.delivering || this.isPaused || this.inbox.length === 0) return;
    this.delivering = true;
    setImmediate(() => {
      this.delivering = false;
      while (this.inbox.length > 0 && !this.isPaused && this.readyState !== this.CLOSED) {
        const [data, binary] = this.inbox.shift()!;
        this.emit('message', data, binary);
      }
    });
  }
}
