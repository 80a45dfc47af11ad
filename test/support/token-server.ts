import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OAuth 2.0 token endpoint on loopback (client credentials): it issues `tok-1`, `tok-2`, … to
 * the client `agent` with secret `s3cret:&` (sent as HTTP Basic, or in the form), and records
 * each token request.
 */
export class TokenServer {
  readonly requests: { headers: IncomingHttpHeaders; form: URLSearchParams }[] = [];
  /** Seconds each token is valid for (`expires_in`); undefined leaves it out. */
  expiresIn: number | undefined = 3600;
  /** Answers the next token request with this status and body instead. */
  failNext: { status: number; body: string; location?: string } | undefined;
  issued = 0;
  private readonly http: Server;

  constructor() {
    this.http = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        this.requests.push({ headers: req.headers, form });
        const json = (status: number, value: unknown) =>
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
        if (this.failNext) {
          const { status, body: text, location } = this.failNext;
          this.failNext = undefined;
          return void res.writeHead(status, location ? { location } : {}).end(text);
        }
        if (form.get('grant_type') !== 'client_credentials')
          return json(400, { error: 'unsupported_grant_type' });
        if (!this.authenticated(req.headers.authorization, form))
          return json(401, { error: 'invalid_client' });
        this.issued++;
        json(200, {
          access_token: `tok-${this.issued}`,
          token_type: 'Bearer',
          ...(this.expiresIn !== undefined && { expires_in: this.expiresIn }),
        });
      });
    });
  }

  /** The token endpoint's URL. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.http.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/oauth/token`;
  }

  stop(): Promise<void> {
    this.http.closeAllConnections();
    return new Promise((resolve) => this.http.close(() => resolve()));
  }

  private authenticated(authorization: string | undefined, form: URLSearchParams): boolean {
    if (authorization?.startsWith('Basic ')) {
      const [id = '', secret = ''] = Buffer.from(authorization.slice(6), 'base64')
        .toString('utf8')
        .split(':')
        .map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
      return id === 'agent' && secret === 's3cret:&';
    }
    return form.get('client_id') === 'agent' && form.get('client_secret') === 's3cret:&';
  }
}
