import { request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { schemeFor, serverFor, type TlsOptions } from './tls.js';

/** What the proxy was asked: a CONNECT tunnel (`host:port`) or a request in absolute form (its URL). */
export interface ProxiedRequest {
  method: string;
  target: string;
  /** The Proxy-Authorization header, if any. */
  auth?: string;
}

/**
 * A real forward proxy on loopback, as an enterprise's egress proxy: HTTPS through CONNECT tunnels,
 * HTTP by requests in absolute form. It resolves the names of `hosts` (names the engine's own
 * resolver does not know, as behind such a proxy); `denied` hosts get 403, and with `credentials`
 * a request without them gets 407.
 */
export class EgressProxy {
  readonly requests: ProxiedRequest[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly options: {
      hosts?: Record<string, string>;
      denied?: string[];
      credentials?: string;
      /** A key and certificate: the proxy is spoken to over TLS (an `https://` proxy). */
      tls?: TlsOptions;
    } = {},
  ) {
    this.server = serverFor((req, res) => {
      const refusal = this.refusal(req, new URL(req.url ?? '/').hostname);
      if (refusal) return void res.writeHead(refusal, { 'Content-Length': '0' }).end();
      const url = new URL(req.url!);
      const headers = { ...req.headers };
      delete headers['proxy-authorization'];
      delete headers['proxy-connection'];
      const upstream = request(
        {
          host: this.address(url.hostname),
          port: url.port || 80,
          path: url.pathname + url.search,
          method: req.method,
          headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      req.pipe(upstream);
    }, options.tls);
    this.server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => client.destroy());
      const [host = '', port = '443'] = (req.url ?? '').split(/:(?=\d+$)/);
      const refusal = this.refusal(req, host);
      if (refusal) return void client.end(`HTTP/1.1 ${refusal} Refused\r\n\r\n`);
      const upstream = connect(Number(port), this.address(host), () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      this.sockets.add(upstream);
      upstream.on('close', () => this.sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
    });
    this.server.on(options.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** The proxy's URL, with `credentials` (`user:password`, encoded) in it when given. */
  async start(credentials?: string): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    const host = this.options.tls ? 'localhost' : '127.0.0.1';
    return `${schemeFor(this.options.tls)}://${credentials ? `${credentials}@` : ''}${host}:${port}`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** From now on only `credentials` (`user:password`) are taken, the old ones get 407; undefined: any. */
  requireCredentials(credentials: string | undefined): void {
    this.options.credentials = credentials;
  }

  /** The targets asked for, in order: `CONNECT host:port` or `GET http://…`. */
  get targets(): string[] {
    return this.requests.map((r) => `${r.method} ${r.target}`);
  }

  private address(host: string): string {
    return this.options.hosts?.[host] ?? host.replace(/^\[|\]$/g, '');
  }

  private refusal(req: IncomingMessage, host: string): number | undefined {
    const auth = req.headers['proxy-authorization'];
    this.requests.push({ method: req.method ?? '', target: req.url ?? '', auth });
    const { credentials, denied } = this.options;
    if (credentials && auth !== `Basic ${Buffer.from(credentials).toString('base64')}`) return 407;
    if (denied?.includes(host)) return 403;
    return undefined;
  }
}
