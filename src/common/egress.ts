/**
 * The egress proxy (EGRESS_PROXY, EGRESS_NO_PROXY), for every outbound request of the engine: its
 * Node clients get agents (an HTTPS server through a CONNECT tunnel, an HTTP one by a request in
 * absolute form), its fetch clients a dispatcher. Set once at start-up (useEgress); unset, every
 * request goes straight to its server, as before. Pure: no Nest import.
 */
import { followRedirects } from './redirects-followed.js';
import { Agent as HttpAgent, globalAgent as httpGlobalAgent, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, globalAgent as httpsGlobalAgent } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { AgentConnectOpts } from 'agent-base';
import { HttpProxyAgent } from 'http-proxy-agent';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { Agent as UndiciAgent, fetch as undiciFetch, ProxyAgent, type Dispatcher } from 'undici';
import { connectionErrorCode } from './connection-error.js';
import { EgressProxyError } from './egress-error.js';

export { EgressProxyError } from './egress-error.js';
import { bypassesProxy, type NoProxyRule } from './no-proxy.js';

export interface EgressSettings {
  /** The proxy's URL (`http://` or `https://`, credentials in it if it needs them); '' for none. */
  proxy: string;
  /** Servers reached directly even so. */
  noProxy: NoProxyRule[];
  /** EGRESS_NO_PROXY as written, for the programs the engine starts. */
  noProxyText?: string;
}

/**
 * The proxy could not be reached: said by the code alone (`connect ECONNREFUSED 10.1.2.3:3128`
 * holds its address), with no cause, so that no caller takes it for the server's own failure.
 */
const unreachable = (error: unknown) =>
  new EgressProxyError(
    `cannot reach the egress proxy (${connectionErrorCode(error) ?? (error as Error).message})`,
    true,
  );

/** Codes of a connection that never was: with a proxy, only ever the connection to the proxy. */
const NO_CONNECTION = new Set([
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

const refused = (host: string, port: unknown, status: number) =>
  new EgressProxyError(
    `the egress proxy refused the connection to ${host}:${String(port)} (HTTP ${status})`,
  );

/** Checks a host before its request goes to the proxy; rejects to refuse it. */
type HostCheck = (host: string) => Promise<void>;

const NO_CHECK: HostCheck = () => Promise.resolve();

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

interface Route {
  settings: EgressSettings;
  check: HostCheck;
}

/** The request's server is one of EGRESS_NO_PROXY's: reached directly. */
const bypassed = (route: Route, opts: AgentConnectOpts) =>
  bypassesProxy(route.settings.noProxy, opts.host ?? '', Number(opts.port));

/** HTTPS servers through a CONNECT tunnel, after the host's check; a proxy's refusal is an error. */
class TunnelAgent extends HttpsProxyAgent<string> {
  constructor(
    private readonly route: Route,
    private readonly directAgent: HttpsAgent,
    keepAlive: boolean,
    /** Shown to the server in the tunnel (not to the proxy). */
    private readonly tls: ClientTls = {},
  ) {
    super(route.settings.proxy, { keepAlive });
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
class ForwardAgent extends HttpProxyAgent<string> {
  constructor(
    private readonly route: Route,
    private readonly directAgent: HttpAgent,
    keepAlive: boolean,
  ) {
    super(route.settings.proxy, { keepAlive });
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

export interface EgressAgents {
  http: HttpAgent;
  https: HttpsAgent;
}

let settings: EgressSettings = { proxy: '', noProxy: [] };
let dispatcher: ProxyAgent | undefined;
let agentSets = new Map<unknown, EgressAgents>();
/** The sets kept for an object (a tool's client certificate): gone with it. */
let objectAgentSets = new WeakMap<object, EgressAgents>();

/** Sets the proxy of every request from now on (start-up; tests). */
export function useEgress(next: EgressSettings): void {
  settings = next;
  void dispatcher?.close();
  dispatcher = next.proxy ? new ProxyAgent({ uri: next.proxy, proxyTunnel: false }) : undefined;
  agentSets = new Map();
  objectAgentSets = new WeakMap();
  tlsDispatchers = new WeakMap();
}

/**
 * The proxy as programs the engine starts (MCP servers over stdio) read it, in the variables
 * curl, Python and Node's HTTP clients take (upper and lower case); none when no proxy is set.
 */
export function egressEnvironment(): Record<string, string> {
  if (!settings.proxy) return {};
  const proxy = settings.proxy.replace(/\/$/, '');
  const vars: Record<string, string> = { HTTP_PROXY: proxy, HTTPS_PROXY: proxy };
  if (settings.noProxyText) vars.NO_PROXY = settings.noProxyText;
  for (const [name, value] of Object.entries(vars)) vars[name.toLowerCase()] = value;
  return vars;
}

/** The proxy's URL without its credentials, for logs and messages; '' when none is set. */
export function egressProxyName(): string {
  if (!settings.proxy) return '';
  const url = new URL(settings.proxy);
  return `${url.protocol}//${url.host}`;
}

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

export interface EgressAgentOptions {
  /** Vets each host sent through the proxy, whose requests the caller's lookup no longer sees. */
  check?: HostCheck;
  /** The agents of EGRESS_NO_PROXY's servers; Node's global agents by default. */
  direct?: EgressAgents;
  keepAlive?: boolean;
  /** A client certificate for HTTPS servers reached through the proxy. */
  tls?: ClientTls;
}

/**
 * Agents for a Node request (http.request, axios's httpAgent/httpsAgent), or undefined when no
 * proxy is set (the caller's own agent, or Node's). `key` names the set: a string, a policy
 * function, an object (kept while it lives), one per way of sending.
 */
export function egressAgents(
  key: unknown,
  { check = NO_CHECK, direct, keepAlive = false, tls }: EgressAgentOptions = {},
): EgressAgents | undefined {
  if (!settings.proxy) return undefined;
  const object = typeof key === 'object' && key !== null;
  let agents = object ? objectAgentSets.get(key) : agentSets.get(key);
  if (!agents) {
    const route = { settings, check };
    const { http, https } = direct ?? { http: httpGlobalAgent, https: httpsGlobalAgent };
    agents = {
      http: new ForwardAgent(route, http, keepAlive),
      https: new TunnelAgent(route, https, keepAlive, tls) as unknown as HttpsAgent,
    };
    if (object) objectAgentSets.set(key, agents);
    else agentSets.set(key, agents);
  }
  return agents;
}

/**
 * undici's words for a tunnel the proxy refused, somewhere under "fetch failed":
 * "Proxy response (403) !== 200 when HTTP Tunneling".
 */
function tunnelRefusal(error: unknown, host: string, port: number): EgressProxyError | undefined {
  let e = error as { message?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    const status = /^Proxy response \((\d+)\)/.exec(String(e.message))?.[1];
    if (status) return refused(host, port, Number(status));
  }
  return undefined;
}

/** The dispatchers of each client certificate: straight to the server, and through the proxy. */
let tlsDispatchers = new WeakMap<ClientTls, { direct?: Dispatcher; proxied?: Dispatcher }>();

function tlsDispatcher(tls: ClientTls, proxied: boolean): Dispatcher {
  let kept = tlsDispatchers.get(tls);
  if (!kept) tlsDispatchers.set(tls, (kept = {}));
  const options = tlsOptions(tls);
  if (proxied)
    return (kept.proxied ??= new ProxyAgent({
      uri: settings.proxy,
      proxyTunnel: false,
      requestTls: options,
    }));
  return (kept.direct ??= new UndiciAgent({ connect: options }));
}

/**
 * `init` as undici's own fetch (not the one Node bundles) takes it: Node's FormData is no
 * FormData to it, and would go as the text "[object FormData]" (a transcription's audio), so it
 * goes encoded as Node's fetch would send it, multipart with its boundary (sent again as it is
 * if a redirect asks).
 */
async function portable(init: RequestInit | undefined): Promise<RequestInit> {
  if (!(init?.body instanceof FormData)) return init ?? {};
  const encoded = new Response(init.body);
  const headers = new Headers(init.headers);
  headers.set('content-type', encoded.headers.get('content-type') ?? 'multipart/form-data');
  return { ...init, headers, body: await encoded.arrayBuffer() };
}

/**
 * `fetch`, through the proxy unless none is set or `url`'s server is in EGRESS_NO_PROXY; with
 * `tls`, `url`'s HTTPS server is shown the client certificate if it asks. Redirects are followed
 * a hop at a time, each server's requests sent as its own (through the proxy, or not).
 */
export async function egressFetch(
  input: string | URL,
  init?: RequestInit,
  tls?: ClientTls,
): Promise<Response> {
  const url = new URL(input);
  // The client certificate is shown to `url`'s host only, not to another a redirect leads to.
  return followRedirects(
    (to, hop) => sendOnce(to, hop, to.hostname === url.hostname ? tls : undefined),
    url,
    await portable(init),
  );
}

/** One request, to `url`'s server, straight or through the proxy. */
function sendOnce(url: URL, init: RequestInit, tls: ClientTls | undefined): Promise<Response> {
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const proxied = dispatcher !== undefined && !bypassesProxy(settings.noProxy, url.hostname, port);
  if (!proxied && !tls) return fetch(url, init);
  const through = tls ? tlsDispatcher(tls, proxied) : dispatcher;
  const sent = undiciFetch(url, { ...init, dispatcher: through } as never) as Promise<Response>;
  if (!proxied) return sent;
  return sent.catch((error: unknown) => {
    const refusal = tunnelRefusal(error, url.hostname, port);
    if (refusal) throw refusal;
    throw NO_CONNECTION.has(connectionErrorCode(error) ?? '') ? unreachable(error) : error;
  });
}
