/**
 * The egress proxy (EGRESS_PROXY, EGRESS_NO_PROXY), for every outbound request of the engine: its
 * Node clients get agents (an HTTPS server through a CONNECT tunnel, an HTTP one by a request in
 * absolute form), its fetch clients a dispatcher. Set at start-up (useEgress), its credentials
 * renewed while the engine runs (renewEgressCredentials); unset, every request goes straight to
 * its server, as before. Pure: no Nest import.
 */
import { globalAgent as httpGlobalAgent, type Agent as HttpAgent } from 'node:http';
import { globalAgent as httpsGlobalAgent, type Agent as HttpsAgent } from 'node:https';
import { createRequire } from 'node:module';
import { Agent as UndiciAgent, fetch as undiciFetch, ProxyAgent, type Dispatcher } from 'undici';
import { connectionErrorCode } from './connection-error.js';
import type { EgressProxyError } from './egress-error.js';
import {
  ForwardAgent,
  NO_CHECK,
  NO_CONNECTION,
  refused,
  tlsOptions,
  TunnelAgent,
  unreachable,
  type ClientTls,
  type HostCheck,
  type Route,
} from './egress-agents.js';
import { bypassesProxy, type NoProxyRule } from './no-proxy.js';
import { followRedirects } from './redirects-followed.js';
import { basicOf, credentialsAsHeader } from './server-url.js';

export { EgressProxyError } from './egress-error.js';
export { lookupCheck, tlsOptions, type ClientTls } from './egress-agents.js';

export interface EgressSettings {
  /** The proxy's URL (`http://` or `https://`, credentials in it if it needs them); '' for none. */
  proxy: string;
  /** Servers reached directly even so. */
  noProxy: NoProxyRule[];
  /** EGRESS_NO_PROXY as written, for the programs the engine starts. */
  noProxyText?: string;
}

export interface EgressAgents {
  http: HttpAgent;
  https: HttpsAgent;
}

let settings: EgressSettings = { proxy: '', noProxy: [] };
/** The Proxy-Authorization of the proxy's credentials in use (Basic); undefined for none. */
let authorization: string | undefined;
let dispatcher: ProxyAgent | undefined;
let agentSets = new Map<unknown, EgressAgents>();
/** The sets kept for an object (a tool's client certificate): gone with it. */
let objectAgentSets = new WeakMap<object, EgressAgents>();

/** A dispatcher of the fetch clients through the proxy (its credentials taken from its URL). */
const proxyDispatcher = (tls?: ClientTls) =>
  new ProxyAgent({
    uri: settings.proxy,
    proxyTunnel: false,
    ...(tls && { requestTls: tlsOptions(tls) }),
  });

/** The proxy settings in use (for a test's engine to put back those it found). */
export function egressInForce(): EgressSettings {
  return settings;
}

/** Sets the proxy of every request from now on (start-up; tests). */
export function useEgress(next: EgressSettings): void {
  settings = next;
  authorization = next.proxy ? basicOf(new URL(next.proxy)) : undefined;
  void dispatcher?.close();
  dispatcher = next.proxy ? proxyDispatcher() : undefined;
  agentSets = new Map();
  objectAgentSets = new WeakMap();
  tlsDispatchers = new WeakMap();
}

/**
 * The proxy's credentials changed (EGRESS_PROXY rotated in its file): the user and password of
 * `proxy` are sent to the proxy in use from each new connection (each request in absolute form)
 * on; requests under way finish as they began. Another proxy's address is taken up only by a
 * restart. Nothing when no proxy is in use.
 */
export function renewEgressCredentials(proxy: string): void {
  if (!settings.proxy || !proxy) return;
  const inUse = new URL(settings.proxy);
  const renewed = new URL(proxy);
  inUse.username = renewed.username;
  inUse.password = renewed.password;
  if (inUse.href === settings.proxy) return;
  settings = { ...settings, proxy: inUse.href };
  authorization = basicOf(inUse);
  // undici's dispatchers keep the credentials they were made with: new ones, the old closed once idle.
  void dispatcher?.close();
  dispatcher = proxyDispatcher();
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
    const bare = new URL(settings.proxy);
    bare.username = bare.password = '';
    const route: Route = {
      proxy: bare.href,
      noProxy: settings.noProxy,
      authorization: () => authorization,
      check,
    };
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

interface TlsDispatchers {
  direct?: Dispatcher;
  proxied?: Dispatcher;
  /** The proxy URL `proxied` was made with: another once its credentials are renewed. */
  proxiedBy?: string;
}

/** The dispatchers of each client certificate: straight to the server, and through the proxy. */
let tlsDispatchers = new WeakMap<ClientTls, TlsDispatchers>();

function tlsDispatcher(tls: ClientTls, proxied: boolean): Dispatcher {
  let kept = tlsDispatchers.get(tls);
  if (!kept) tlsDispatchers.set(tls, (kept = {}));
  if (!proxied) return (kept.direct ??= new UndiciAgent({ connect: tlsOptions(tls) }));
  if (!kept.proxied || kept.proxiedBy !== settings.proxy) {
    void kept.proxied?.close();
    kept.proxied = proxyDispatcher(tls);
    kept.proxiedBy = settings.proxy;
  }
  return kept.proxied;
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
 * a hop at a time, each server's requests sent as its own (through the proxy, or not). A user and
 * password in `url` are sent as Basic credentials (not to another host a redirect leads to).
 */
export async function egressFetch(
  input: string | URL,
  given?: RequestInit,
  tls?: ClientTls,
): Promise<Response> {
  const { url, init } = credentialsAsHeader(new URL(input), given);
  // The client certificate is shown to `url`'s host only, not to another a redirect leads to.
  return followRedirects(
    (to, hop) => sendOnce(to, hop, to.hostname === url.hostname ? tls : undefined),
    url,
    await portable(init),
  );
}

/**
 * The ports the Fetch standard calls bad (SIP's 5060, X11's 6000, IRC's 6665–6669, 10080, …),
 * which fetch refuses to reach ("fetch failed", cause "bad port"), as undici's fetch has them. A
 * browser's rule: an operator's LLM, speech or MCP server may well listen on one.
 */
const BAD_PORTS = ((): ReadonlySet<string> => {
  try {
    const constants = createRequire(import.meta.url)('undici/lib/web/fetch/constants.js') as {
      badPortsSet?: ReadonlySet<string>;
    };
    return constants.badPortsSet ?? new Set();
  } catch {
    // An undici that keeps them elsewhere: such ports fail as fetch fails them (a test says so).
    return new Set();
  }
})();
/** The dispatcher of requests to a bad port sent straight to their server. */
let straight: UndiciAgent | undefined;

/**
 * A request to a bad port as fetch takes it: its URL on its scheme's default port, and a
 * dispatcher that sends it to its own (`url`'s origin: the connection and the Host header).
 */
function aroundBadPort(
  url: URL,
  through: Dispatcher | undefined,
): { url: URL; dispatcher: Dispatcher } | undefined {
  if (!BAD_PORTS.has(url.port)) return undefined;
  const { origin } = url;
  const given = new URL(url);
  given.port = '';
  const base = through ?? (straight ??= new UndiciAgent());
  return {
    url: given,
    dispatcher: base.compose(
      (dispatch) => (options, handler) => dispatch({ ...options, origin }, handler),
    ),
  };
}

/** One request, to `url`'s server, straight or through the proxy. */
function sendOnce(url: URL, init: RequestInit, tls: ClientTls | undefined): Promise<Response> {
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const proxied = dispatcher !== undefined && !bypassesProxy(settings.noProxy, url.hostname, port);
  const through = tls ? tlsDispatcher(tls, proxied) : proxied ? dispatcher : undefined;
  const around = aroundBadPort(url, through);
  if (!through && !around) return fetch(url, init);
  const sent = undiciFetch(around?.url ?? url, {
    ...init,
    dispatcher: around?.dispatcher ?? through,
  } as never) as Promise<Response>;
  if (!proxied) return sent;
  return sent.catch((error: unknown) => {
    const refusal = tunnelRefusal(error, url.hostname, port);
    if (refusal) throw refusal;
    throw NO_CONNECTION.has(connectionErrorCode(error) ?? '') ? unreachable(error) : error;
  });
}
