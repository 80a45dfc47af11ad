import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { schemeFor, serverFor, type TlsOptions } from './tls.js';
import { listenOn } from './bad-port.js';

export interface RecordedRequest {
  method: string;
  /** The request target exactly as it arrived on the wire. */
  url: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body as it came (binary bodies: audio, protobuf). */
  bytes: Buffer;
  /** Over TLS, the common name of the client certificate shown, if any. */
  clientCertificate?: string;
}

export type Handler = (req: RecordedRequest, res: ServerResponse) => void;

/** A real HTTP server on loopback that records every request it receives. */
export class RecordingServer {
  readonly requests: RecordedRequest[] = [];
  private server: Server;
  private handler: Handler = (_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ ok: true }));
  };

  /** With `tls` (a key and certificate), it speaks HTTPS. */
  constructor(private readonly tls?: TlsOptions) {
    this.server = serverFor((req, res) => void this.onRequest(req, res), tls);
  }

  respond(handler: Handler): void {
    this.handler = handler;
  }

  /** Listens on loopback, on `port` if given (rejects if it is taken); its base URL. */
  async start(port = 0): Promise<string> {
    await listenOn(this.server)(port);
    return `${schemeFor(this.tls)}://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      url: target,
      path: q === -1 ? target : target.slice(0, q),
      query: Object.fromEntries(new URLSearchParams(q === -1 ? '' : target.slice(q + 1))),
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      bytes: Buffer.concat(chunks),
    };
    const peer = (req.socket as Partial<TLSSocket>).getPeerCertificate?.();
    if (peer?.subject) recorded.clientCertificate = String(peer.subject.CN);
    this.requests.push(recorded);
    this.handler(recorded, res);
  }
}

/** A RecordingServer for one describe block: started before its tests, stopped after, forgetting its requests before each. */
export function useRecordingServer(): { server: RecordingServer; url: () => string } {
  const server = new RecordingServer();
  let url = '';
  beforeAll(async () => {
    url = await server.start();
  });
  afterAll(() => server.stop());
  beforeEach(() => {
    server.requests.length = 0;
  });
  return { server, url: () => url };
}

/** What an echo route of code tools' suites answers: the request as the server saw it, as JSON. */
export function echoed(req: RecordedRequest): string {
  return JSON.stringify({
    url: req.url,
    key: req.headers['x-api-key'],
    auth: req.headers.authorization,
    cookie: req.headers.cookie,
    ...(req.body && { body: req.body, type: req.headers['content-type'] }),
  });
}
