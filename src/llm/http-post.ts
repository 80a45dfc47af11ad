import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { urlToHttpOptions } from 'node:url';
import { egressAgents, tlsOptions, type ClientTls } from '../common/egress.js';

/** The answer to a POST: status, and the body as a Node stream (read it, or ask for its text). */
export interface HttpReply {
  status: number;
  ok: boolean;
  body: IncomingMessage;
  /**
   * The whole body; past MAX_BODY_CHARS the connection is cut and ReplyTooLarge thrown. With
   * `upTo`, the body's first `upTo` characters at most (an error's, read only to be quoted).
   */
  text(upTo?: number): Promise<string>;
}

/**
 * The most of one answer, or of one SSE event, the engine holds (in characters): a server or
 * proxy that sends more without end must not take the engine's memory.
 */
export const MAX_BODY_CHARS = 16 * 1024 * 1024;

export class ReplyTooLarge extends Error {
  constructor(what: string) {
    super(`the LLM server sent ${what} larger than ${MAX_BODY_CHARS / 1048576} MiB`);
  }
}

/**
 * The connections to the LLM server, kept alive between requests. Node's global agent keeps at
 * most 256 idle: with more sessions streaming at once, the connections over that were closed as
 * their answers ended, and the next turns paid a new TCP (and TLS) handshake each. An idle
 * connection is closed after 5 s, as by the global agent (sooner if the server says so); one in
 * use has no timer (see postJson).
 */
const POOL = { keepAlive: true, scheduling: 'lifo', timeout: 5000, maxFreeSockets: 4096 } as const;
const httpAgent = new HttpAgent(POOL);
const httpsAgent = new HttpsAgent(POOL);

/** How many idle connections the direct pools keep for the next requests to `url`'s server. */
export function idleConnections(
  url: string,
  agents: HttpAgent[] = [httpAgent, httpsAgent],
): number {
  const { hostname, port } = new URL(url);
  const name = `${hostname}:${port}:`;
  let idle = 0;
  for (const agent of agents)
    for (const [key, sockets] of Object.entries(agent.freeSockets))
      if (key.startsWith(name)) idle += sockets?.length ?? 0;
  return idle;
}

/** The HTTPS pool of each client certificate (LLM_CLIENT_CERT_FILE's, a renewed one). */
const tlsAgents = new WeakMap<ClientTls, HttpsAgent>();

/**
 * The pool's agents, or the egress proxy's (EGRESS_PROXY) that keep alive their own; `tls`: the
 * client certificate HTTPS servers that ask for one are shown.
 */
function agentFor(https: boolean, tls: ClientTls | undefined): HttpAgent {
  const direct = directHttps(tls);
  const agents = egressAgents(tls ?? 'llm', {
    direct: { http: httpAgent, https: direct },
    keepAlive: true,
    tls,
  });
  return agents ? agents[https ? 'https' : 'http'] : https ? direct : httpAgent;
}

/** The pool of HTTPS connections made directly, showing `tls`'s certificate if any. */
function directHttps(tls: ClientTls | undefined): HttpsAgent {
  if (!tls) return httpsAgent;
  let agent = tlsAgents.get(tls);
  if (!agent) tlsAgents.set(tls, (agent = new HttpsAgent({ ...POOL, ...tlsOptions(tls) })));
  return agent;
}

/** Request options of each URL posted to (the LLM servers': few), parsed once, not per request. */
const targets = new Map<string, ReturnType<typeof urlToHttpOptions>>();
function targetOf(url: string): ReturnType<typeof urlToHttpOptions> {
  let target = targets.get(url);
  if (!target) {
    if (targets.size >= 16) targets.clear();
    targets.set(url, (target = urlToHttpOptions(new URL(url))));
  }
  return target;
}

/** Errors of a kept-alive connection that the server closed just as it was reused. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);

/**
 * POSTs a JSON body with Node's own HTTP client: its streams cost far less per chunk than
 * fetch's web streams, which matters when every token of every session arrives as one chunk.
 * Connections are kept alive between requests (`POOL`); a request that fails because
 * the server had just closed the reused connection is sent once more on a new one.
 * Aborting `signal` destroys the connection.
 */
export function postJson(
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
  tls?: ClientTls,
  retried = false,
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const https = url.startsWith('https:');
    const send = https ? httpsRequest : httpRequest;
    const req = send(
      {
        ...targetOf(url),
        method: 'POST',
        agent: agentFor(https, tls),
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        signal,
      },
      (res) => {
        res.setEncoding('utf8');
        const status = res.statusCode ?? 0;
        resolve({
          status,
          ok: status >= 200 && status < 300,
          body: res,
          text: async (upTo?: number) => {
            let text = '';
            for await (const chunk of res) {
              text += chunk as string;
              if (text.length > (upTo ?? MAX_BODY_CHARS)) {
                res.destroy();
                if (upTo === undefined) throw new ReplyTooLarge('a reply');
                return text.slice(0, upTo);
              }
            }
            return text;
          },
        });
      },
    );
    // Node's agent gives a connection its idle timeout in use too, where nothing acts on it (a
    // request has the stream's watchdog) and every chunk of a streamed answer moved its timer.
    // Taken off here, it is set again as the connection goes back to the pool.
    req.once('socket', (socket) => socket.setTimeout(0));
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (req.reusedSocket && !retried && !signal.aborted && STALE_CONNECTION.has(error.code ?? ''))
        resolve(postJson(url, headers, body, signal, tls, true));
      else reject(error);
    });
    req.end(body);
  });
}

/**
 * Opens a connection to `url`'s server in the pool, when it has none idle, with a GET of `url`
 * (its answer read and dropped): the next request then finds it ready, its TCP (and TLS)
 * handshake done. Never fails: a server that cannot be reached is the request's to tell.
 */
export function warmConnection(
  url: string,
  headers: Record<string, string>,
  tls?: ClientTls,
): void {
  const https = url.startsWith('https:');
  const agent = agentFor(https, tls);
  // Through an egress proxy the connections are the proxy's to keep.
  if (agent !== (https ? directHttps(tls) : httpAgent) || idleConnections(url, [agent]) > 0) return;
  const send = https ? httpsRequest : httpRequest;
  const req = send({ ...targetOf(url), method: 'GET', agent, headers, timeout: 5000 }, (res) =>
    res.resume(),
  );
  req.on('timeout', () => req.destroy());
  req.on('error', () => undefined);
  req.end();
}

/** After `[DONE]` the server ends the response at once; waiting this long at most keeps the connection for reuse. */
const DRAIN_AFTER_DONE_MS = 2000;

/**
 * Lets the rest of a finished response (the end of the chunked body) arrive, so that the
 * keep-alive agent can reuse the connection: no new TCP (and TLS) handshake for the next round.
 * A server that does not end the response soon after `[DONE]` loses the connection instead.
 */
export function drainForReuse(body: Readable): void {
  if (body.readableEnded) return;
  const timer = setTimeout(() => body.destroy(), DRAIN_AFTER_DONE_MS);
  timer.unref();
  body.once('end', () => clearTimeout(timer));
  body.once('close', () => clearTimeout(timer));
  body.resume();
}
