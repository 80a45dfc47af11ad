import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, type ServerOptions as TlsOptions } from 'node:https';

export type { TlsOptions };

/** The test CA's PEM file, for NODE_EXTRA_CA_CERTS (see test/fixtures/tls/README.md). */
export const TEST_CA = 'test/fixtures/tls/ca.pem';

/** A certificate for 127.0.0.1 and localhost that the test CA signed (no default store trusts it). */
export const testTls = (): TlsOptions => ({
  key: readFileSync('test/fixtures/tls/server.key'),
  cert: readFileSync('test/fixtures/tls/server.pem'),
});

/** An HTTP server, or with `tls` (a key and certificate) an HTTPS one. */
export function serverFor(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  tls?: TlsOptions,
): Server {
  return tls ? createTlsServer(tls, handler) : createServer(handler);
}

/** `http` or `https`, as `serverFor` serves with `tls`. */
export const schemeFor = (tls: TlsOptions | undefined) => (tls ? 'https' : 'http');
