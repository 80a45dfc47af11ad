import WebSocket from 'ws';
import { checkFrame } from './frame-check.js';

export type Msg = Record<string, any> & { type: string };

/**
 * A real `ws` client that records every message and lets a test wait for one. Each message is
 * checked against asyncapi.json (frame-check.ts).
 */
export class WsClient {
  readonly messages: Msg[] = [];
  private waiters: { test: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];
  closeCode: number | undefined;
  readonly closed: Promise<number>;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      const msg = JSON.parse(data.toString()) as Msg;
      checkFrame(msg);
      this.messages.push(msg);
      this.waiters = this.waiters.filter((w) => (w.test(msg) ? (w.resolve(msg), false) : true));
    });
    this.closed = new Promise((resolve) =>
      socket.on('close', (code) => resolve((this.closeCode = code))),
    );
  }

  /** Opens `url`, its upgrade request with `headers` (a gateway's `traceparent`, say). */
  static async connect(url: string, headers?: Record<string, string>): Promise<WsClient> {
    const socket = new WebSocket(url, headers && { headers });
    const client = new WsClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    await client.waitFor((m) => m.type === 'session');
    return client;
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Resolves with the first message (already received or to come) that passes `test`. */
  waitFor(test: (m: Msg) => boolean, from = 0, timeoutMs = 5000): Promise<Msg> {
    const seen = this.messages.slice(from).find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new Error(`timed out waiting; got ${JSON.stringify(this.messages.slice(from))}`)),
        timeoutMs,
      );
      this.waiters.push({ test, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  /** Sends user text and returns the turn's messages up to and including `assistant_end`. */
  async turn(text: string, timeoutMs = 5000): Promise<Msg[]> {
    const from = this.messages.length;
    this.send({ type: 'user_text', text });
    const end = await this.waitFor((m) => m.type === 'assistant_end', from, timeoutMs);
    return this.messages.slice(from, this.messages.indexOf(end) + 1);
  }

  close(): void {
    this.socket.close();
  }
}

/** A client whose session was switched to voice (`session.update` with `settings`), as the engine confirmed. */
export async function voiceSession(
  wsUrl: string,
  settings: Record<string, unknown> = {},
): Promise<WsClient> {
  const ws = await WsClient.connect(wsUrl);
  ws.send({ type: 'session.update', modality: 'voice', ...settings });
  await ws.waitFor((m) => m.type === 'session.updated');
  return ws;
}
