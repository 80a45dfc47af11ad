import type { TLSSocket } from 'node:tls';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAiLlmClient } from '../../src/llm/openai-llm.client.js';
import { schemeFor, serverFor, type TlsOptions } from './tls.js';
import { listenOn } from './bad-port.js';
import type { Script } from './llm-scripts.js';

export * from './llm-scripts.js';

export interface LlmRequestRecord {
  body: Record<string, any>;
  headers: IncomingMessage['headers'];
  /** Header names and values as sent, repeats included. */
  rawHeaders: string[];
  /** Resolves when the client closed the connection before the answer was complete. */
  aborted: Promise<void>;
  wasAborted: boolean;
  /** The client's TCP port: the same port on two requests means the connection was reused. */
  clientPort: number | undefined;
  /** The request target (path and query). */
  url: string;
}

/** A scriptable OpenAI-compatible server speaking real SSE over HTTP on loopback. */
export class FakeLlm {
  readonly requests: LlmRequestRecord[] = [];
  readonly modelsRequests: number[] = [];
  /** The client's port of each `GET /models` (its connection). */
  readonly modelsPorts: (number | undefined)[] = [];
  /** The headers of each `GET /models`. */
  readonly modelsHeaders: IncomingMessage['headers'][] = [];
  /** The request target of each `GET /models`. */
  readonly modelsUrls: string[] = [];
  /** Over HTTPS, each request as `GET /v1/models` with the CN of the client's certificate, if any. */
  readonly clientCertificates: string[] = [];
  /** Completion requests whose connection is still open (answered or not). */
  open = 0;
  /** The connections clients opened to it, all told (kept over resets). */
  connections = 0;
  private scripts: (Script | ((body: Record<string, any>) => Script))[] = [];
  /** Answers requests once the queue is empty (by default: HTTP 500). */
  fallback: ((body: Record<string, any>) => Script) | undefined;
  /** Answers the requests it picks (a script) ahead of the queue, which they leave as it is. */
  intercept: ((body: Record<string, any>) => Script | undefined) | undefined;
  private readonly server: Server;

  /** With `tls` (a key and certificate), it speaks HTTPS. */
  constructor(private readonly tls?: TlsOptions) {
    this.server = serverFor((req, res) => void this.handle(req, res), tls);
    this.server.on('connection', () => this.connections++);
  }

  /** Listens on loopback, on `port` if given (rejects if it is taken); its base URL. */
  async start(port = 0): Promise<string> {
    await listenOn(this.server)(port);
    port = (this.server.address() as AddressInfo).port;
    return `${schemeFor(this.tls)}://127.0.0.1:${port}/v1`;
  }

  /** The names of the tools completion request `i` offered (the last: -1), in order. */
  offered(i: number): string[] {
    const tools = (this.requests.at(i)!.body.tools ?? []) as { function: { name: string } }[];
    return tools.map((t) => t.function.name);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Queues answers for the next requests, in order. */
  enqueue(...scripts: (Script | ((body: Record<string, any>) => Script))[]): void {
    this.scripts.push(...scripts);
  }

  /** Drops the answers still queued. */
  clearQueue(): void {
    this.scripts = [];
  }

  reset(): void {
    this.scripts = [];
    this.fallback = undefined;
    this.intercept = undefined;
    this.requests.length = 0;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.tls) {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      this.clientCertificates.push(
        `${req.method} ${req.url} ${String(peer.subject?.CN ?? '(none)')}`,
      );
    }
    if (req.method === 'GET' && new URL(req.url ?? '/', 'http://x').pathname.endsWith('/models')) {
      this.modelsRequests.push(Date.now());
      this.modelsPorts.push(req.socket.remotePort);
      this.modelsHeaders.push(req.headers);
      this.modelsUrls.push(req.url ?? '');
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model' }] }));
      return;
    }
    // As a server: a GET of anything else is not found (the engine's own path gone wrong).
    if (req.method === 'GET') return void res.writeHead(404).end('{"error":"not found"}');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let finished = false;
    let onAbort!: () => void;
    const record: LlmRequestRecord = {
      body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      url: req.url ?? '',
      aborted: new Promise<void>((resolve) => (onAbort = resolve)),
      wasAborted: false,
      clientPort: req.socket.remotePort,
    };
    this.open++;
    res.on('close', () => {
      this.open--;
      if (!finished) {
        record.wasAborted = true;
        onAbort();
      }
    });
    this.requests.push(record);
    // As llama.cpp's JSON parser and vLLM's tokenizer do: half a character (a lone surrogate,
    // written `\ud800` in JSON) cannot be encoded as UTF-8, and the request is refused.
    if (!wellFormed(record.body)) {
      finished = true;
      return void res
        .writeHead(400, { 'Content-Type': 'application/json' })
        .end('{"error":{"message":"fake LLM: the request holds a lone surrogate"}}');
    }
    const next = this.intercept?.(record.body) ?? this.scripts.shift() ?? this.fallback;
    const script: Script = next
      ? typeof next === 'function'
        ? next(record.body)
        : next
      : { kind: 'status', status: 500, body: '{"error":{"message":"fake LLM: no script queued"}}' };
    switch (script.kind) {
      case 'hang':
        return;
      case 'drop':
        finished = true;
        req.socket.destroy();
        return;
      case 'status':
        res
          .writeHead(script.status, { 'Content-Type': 'application/json', ...script.headers })
          .end(script.body);
        finished = true;
        return;
      case 'json':
        res
          .writeHead(script.status ?? 200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify(script.body));
        finished = true;
        return;
      case 'sse':
        res.writeHead(200, {
          'Content-Type': script.contentType ?? 'text/event-stream',
          'Cache-Control': 'no-cache',
        });
        res.flushHeaders();
        for (const [i, piece] of script.pieces.entries()) {
          if (i === script.pieces.length - 2 && script.gate) await script.gate;
          if (res.destroyed) return;
          res.write(piece);
          // Without a delay, one turn of the event loop between pieces: each still arrives on
          // its own, without the millisecond a zero timer waits.
          await new Promise((r) =>
            script.delayMs ? setTimeout(r, script.delayMs) : setImmediate(r),
          );
        }
        if (script.keepOpen) return;
        finished = true;
        res.end();
    }
  }
}

/** Whether every string of `value` (keys too) is whole characters: no lone surrogate. */
function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (Array.isArray(value)) return value.every(wellFormed);
  if (value && typeof value === 'object')
    return Object.entries(value).every(([k, v]) => k.isWellFormed() && wellFormed(v));
  return true;
}

/** A FakeLlm for a describe block: started before its tests, reset before each, stopped after. */
export function useFakeLlm(): { llm: FakeLlm; url: () => string } {
  const llm = new FakeLlm();
  let url = '';
  beforeAll(async () => {
    url = await llm.start();
  });
  afterAll(() => llm.stop());
  beforeEach(() => llm.reset());
  return { llm, url: () => url };
}

/** The engine's LLM client pointed at `baseUrl` (a FakeLlm), with test defaults. */
export function llmClient(
  baseUrl: string,
  over: Partial<ConstructorParameters<typeof OpenAiLlmClient>[0]> = {},
): OpenAiLlmClient {
  return new OpenAiLlmClient({
    enabled: true,
    baseUrl,
    model: 'fake-model',
    models: [],
    apiKey: '',
    systemPrompt: '',
    traceContext: true,
    timeoutSecs: 5,
    retries: 0,
    retryBackoffMs: 10,
    extraBody: {},
    extraHeaders: {},
    untaggedReasoning: false,
    defuseSpecialTokens: true,
    keepReasoning: 'turn',
    serverToolParser: 'auto',
    maxHistoryMessages: 50,
    historySummary: false,
    clock: 'off',
    clientTls: undefined,
    ...over,
  });
}
