/**
 * The agents of Node clients' requests through the egress proxy: HTTPS servers through a CONNECT
 * tunnel, HTTP ones by requests in absolute form, each host checked first, EGRESS_NO_PROXY's
 * servers sent to the direct agents. The proxy's credentials are asked at each connection (each
 * request, in absolute form), so that rotated ones are sent from the next on. Pure: no Nest import.
 */
import type { Agent as HttpAgent, ClientRequest, OutgoingHttpHeaders } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { AgentConnectOpts } from 'agent-base';
import { HttpProxyAgent } from 'http-proxy-agent';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { connectionErrorCode } from './connection-error.js';
import { EgressProxyError } from './egress-error.js';
import { bypassesProxy, type NoProxyRule } from './no-proxy.js';

/** A client certificate shown to HTTPS servers (mutual TLS), and the CA trusted for them, if not Node's. */
export interface ClientTls {
  cert?: Buffer;
  key?: Buffer;
  passphrase?: string;
  ca?: Buffer;
}

/** Only the TLS parts of `tls`, as TLS options take them (a loaded certificate carries more: its files). */
export function tlsOptions({ cert, key, passphrase, ca }: ClientTls): ClientTls {
  return { cert, key, passphrase, ...(ca && { ca }) };
}

/**
 * The proxy could not be reached: said by the code alone (`connect ECONNREFUSED 10.1.2.3:3128`
 * holds its address), with no cause, so that no caller takes it for the server's own failure.
 */
export const unreachable = (error: unknown) =>
  new EgressProxyError(
    `cannot reach the egress proxy (${connectionErrorCode(error) ?? (error as Error).message})`,
    true,
  );

/** Codes of a connection that never was: with a proxy, only ever the connection to the proxy. */
export const NO_CONNECTION = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The connection `connecting` makes to the proxy; its failure an EgressProxyError. */
async function toProxy<T>(connecting: Promise<T>): Promise<T> {
  try {
    return await connecting;
  } catch (error) {
    throw error instanceof EgressProxyError ? error : unreachable(error);
  }
}

export const refused = (host: string, port: unknown, status: number) =>
  new EgressProxyError(
    `the egress proxy refused the connection to ${host}:${String(port)} (HTTP ${status})`,
  );

/** Checks a host before its request goes to the proxy; rejects to refuse it. */
export type HostCheck = (host: string) => Promise<void>;

export const NO_CHECK: HostCheck = () => Promise.resolve();

/** Where the engine's DNS has no answer, the proxy (which resolves names for its network) is asked. */
const UNRESOLVED = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME']);

/**
 * A HostCheck of a guarded lookup (see address-guard.ts): a name is refused when an address it
 * resolves to here is refused. A name this resolver cannot resolve is left to the proxy.
 */
export function lookupCheck(lookup: LookupFunction): HostCheck {
  return (host) =>
    new Promise((resolve, reject) =>
      lookup(host.replace(/^\[|\]$/g, ''), { all: true }, (error) =>
        !error || UNRESOLVED.has(error.code ?? '') ? resolve() : reject(error),
      ),
    );
}

/** How the agents of one set reach the proxy. */
export interface Route {
  /** The proxy's URL, without its credentials. */
  proxy: string;
  /** EGRESS_NO_PROXY's servers. */
  noProxy: NoProxyRule[];
  /** The Proxy-Authorization header's value of the moment (credentials rotate); undefined for none. */
  authorization: () => string | undefined;
  check: HostCheck;
}

/** The request's server is one of EGRESS_NO_PROXY's: reached directly. */
const bypassed = (route: Route, opts: AgentConnectOpts) =>
  bypassesProxy(route.noProxy, opts.host ?? '', Number(opts.port));

/** The agents' options: the proxy's credentials asked at each connection, not kept from the URL. */
function proxyOptions(route: Route, keepAlive: boolean) {
  const headers = (): OutgoingHttpHeaders => {
    const authorization = route.authorization();
    return authorization ? { 'Proxy-Authorization': authorization } : {};
  };
  return { keepAlive, headers };
}

/** HTTPS servers through a CONNECT tunnel, after the host's check; a proxy's refusal is an error. */
export class TunnelAgent extends HttpsProxyAgent<string> {
  constructor(
    private readonly route: Route,
    private readonly directAgent: HttpsAgent,
    keepAlive: boolean,
    /** Shown to the server in the tunnel (not to the proxy). */
    private readonly tls: ClientTls = {},
  ) {
    super(route.proxy, proxyOptions(route, keepAlive));
  }

  override async connect(req: ClientRequest, opts: AgentConnectOpts) {
    if (bypassed(this.route, opts)) return this.directAgent as never;
    await this.route.check(opts.host ?? '');
    let status = 0;
    req.once('proxyConnect', (connect: { statusCode: number; statusText?: string }) => {
      status = connect.statusCode;
    });
    const tunnel = { ...opts, ...tlsOptions(this.tls) } as AgentConnectOpts;
    const socket = await toProxy(super.connect(req, tunnel));
    if (status !== 200) {
      socket.destroy();
      throw refused(opts.host ?? '', opts.port, status);
    }
    return socket;
  }
}

type ForwardedRequest = Parameters<HttpProxyAgent<string>['connect']>[0];

/** HTTP servers by a request in absolute form to the proxy, after the host's check. */
export class ForwardAgent extends HttpProxyAgent<string> {
  constructor(
    private readonly route: Route,
    private readonly directAgent: HttpAgent,
    keepAlive: boolean,
  ) {
    super(route.proxy, proxyOptions(route, keepAlive));
  }

  override addRequest(req: ForwardedRequest, opts: AgentConnectOpts): void {
    if (bypassed(this.route, opts))
      return (this.directAgent as unknown as ForwardAgent).addRequest(req, opts);
    super.addRequest(req, opts);
  }

  override async connect(req: ForwardedRequest, opts: AgentConnectOpts) {
    await this.route.check(opts.host ?? '');
    return toProxy(super.connect(req, opts));
  }
}
