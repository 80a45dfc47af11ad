import { randomUUID } from 'node:crypto';
import type {
  IncomingHttpHeaders,
  IncomingMessage,
  Server as HttpServer,
  ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { schemeFor, serverFor, type TlsOptions } from './tls.js';
import { callSide, startTask } from './mcp-call-work.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import {
  InMemoryTaskMessageQueue,
  InMemoryTaskStore,
} from '@modelcontextprotocol/sdk/experimental/tasks';
import {
  CallToolRequestSchema,
  ErrorCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';

/** A tool the test server lists, and how it answers a call. */
export interface McpTestTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
  /** Listed as `execution.taskSupport` (MCP 2025-11-25); `required`: a call must be a task. */
  taskSupport?: 'required' | 'optional';
  /** Listed only to a client that declares sampling (as the reference everything server does). */
  samplingOnly?: true;
  answer: (
    args: Record<string, unknown>,
    extra: {
      signal: AbortSignal;
      headers: IncomingHttpHeaders;
      /** Sends its client a log message (`notifications/message`) of `level`, from logger `orders`. */
      log?: (level: string, data: unknown) => Promise<void>;
      /** Tells its client how far the call has got (`notifications/progress`; a task's status message). */
      progress?: (progress: number, total?: number, message?: string) => Promise<void>;
      /**
       * Asks its client's user (`elicitation/create`, form mode; `required`: the form's), giving
       * up after `timeoutMs` (the SDK then cancels the request).
       */
      elicit?: (
        message: string,
        properties?: Record<string, unknown>,
        required?: string[],
        timeoutMs?: number,
      ) => Promise<unknown>;
      /** Asks its client's model for a completion (`sampling/createMessage`). */
      sample?: (params: Record<string, unknown>) => Promise<unknown>;
    },
  ) => Promise<Record<string, unknown>> | Record<string, unknown>;
}

/**
 * A real MCP server (the SDK's Streamable HTTP transport, one session per client) on loopback,
 * recording every tools/list and tools/call with the headers it came with.
 */
export class McpTestServer {
  readonly calls: { name: string; args: Record<string, unknown>; headers: IncomingHttpHeaders }[] =
    [];
  lists = 0;
  /** The headers each tools/list came with. */
  readonly listedWith: IncomingHttpHeaders[] = [];
  /** Calls being answered now. */
  running = 0;
  /** `notifications/cancelled` received: a client giving up on a request. */
  cancellations = 0;
  /** GETs resuming an event stream (`Last-Event-ID`). */
  resumptions = 0;
  /** Calls made as tasks (`tools/call` with `task`), and `tasks/get` asked. */
  readonly tasks = { created: 0, polled: 0, cancelled: 0 };
  /** What aborts each task's work, by task id (`tasks/cancel`). */
  private readonly taskWork = new Map<string, AbortController>();
  /** Sessions opened (initialize requests answered). */
  sessionsOpened = 0;
  /** The ids of the sessions its clients ended (HTTP DELETE), in order. */
  readonly sessionsEnded: string[] = [];
  /** Answers the next request with this HTTP status and body instead (an overloaded server). */
  failNext: { status: number; body: string } | undefined;
  private readonly sessions = new Map<string, StreamableHTTPServerTransport>();
  /** The server side of each session, to send it notifications. */
  private readonly servers = new Set<Server>();
  private readonly http: HttpServer;
  /** Tasks of every session (the SDK's store keeps them apart by session). */
  private readonly taskStore = new InMemoryTaskStore();
  /** What a task's work asks its client (its questions), delivered on `tasks/result`. */
  private readonly taskQueue = new InMemoryTaskMessageQueue();

  /** Sessions of the older HTTP+SSE transport (`legacy`), by id. */
  private readonly legacySessions = new Map<string, SSEServerTransport>();

  /**
   * `json`: answers as one JSON body, not an event stream (the transport's enableJsonResponse).
   * `legacy`: speaks only the older HTTP+SSE transport (MCP 2024-11-05): a GET opens the event
   * stream, which names where to POST; a POST to the stream's URL is refused (405).
   * `pageSize`: lists its tools in pages of that many, as servers with many tools do.
   * `resumable`: keeps its events (an event store): each carries an id, and a stream broken off
   * can be resumed (a GET with `Last-Event-ID`).
   * `tls`: a key and certificate: it speaks HTTPS.
   * `stateless`: no session (the SDK's stateless mode, FastMCP's `stateless_http`): each POST is
   * answered by a server of its own, a GET refused (405); it cannot say its tools changed.
   */
  constructor(
    private tools: McpTestTool[],
    private readonly options: {
      json?: boolean;
      legacy?: boolean;
      pageSize?: number;
      resumable?: boolean;
      tls?: TlsOptions;
      stateless?: boolean;
    } = {},
  ) {
    this.http = serverFor((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (this.failNext) {
          const { status, body } = this.failNext;
          this.failNext = undefined;
          return void res.writeHead(status).end(body);
        }
        const text = Buffer.concat(chunks).toString('utf8');
        const body: unknown = text === '' ? undefined : JSON.parse(text);
        const message = body as { method?: unknown; params?: { taskId?: string } } | undefined;
        if (message?.method === 'notifications/cancelled') this.cancellations++;
        if (req.method === 'GET' && req.headers['last-event-id']) this.resumptions++;
        if (message?.method === 'tasks/get') this.tasks.polled++;
        if (message?.method === 'tasks/cancel') {
          this.tasks.cancelled++;
          this.taskWork.get(message.params?.taskId ?? '')?.abort();
        }
        if (this.options.legacy) return this.legacyRequest(req, res, body);
        if (this.options.stateless) return void this.statelessRequest(req, res, body);
        const id = req.headers['mcp-session-id'];
        const known = typeof id === 'string' ? this.sessions.get(id) : undefined;
        if (known) return void known.handleRequest(req, res, body);
        if (req.method === 'POST' && id === undefined && isInitializeRequest(body))
          return void this.open(req.headers).then((t) => t.handleRequest(req, res, body));
        res.writeHead(id === undefined ? 400 : 404).end();
      });
    }, options.tls);
  }

  /** Listens on `port` (a free one by default) of `host`; resolves to the endpoint's URL. */
  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    await new Promise<void>((resolve) => this.http.listen(port, host, resolve));
    return `${schemeFor(this.options.tls)}://${host}:${(this.http.address() as AddressInfo).port}/mcp`;
  }

  /**
   * Lists `tools` from now on, and (unless `notify` is false) tells every open session
   * (`notifications/tools/list_changed`).
   */
  async changeTools(tools: McpTestTool[], notify = true): Promise<void> {
    this.tools = tools;
    if (notify) await Promise.all([...this.servers].map((s) => s.sendToolListChanged()));
  }

  /** Forgets every session, as a restarted server does: their ids get 404 from now on. */
  async forgetSessions(): Promise<void> {
    const open = [...this.sessions.values(), ...this.legacySessions.values()];
    this.sessions.clear();
    this.legacySessions.clear();
    await Promise.all(open.map((t) => t.close()));
  }

  /** HTTP connections its clients hold open now. */
  openConnections(): Promise<number> {
    return new Promise((resolve, reject) =>
      this.http.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );
  }

  async stop(): Promise<void> {
    this.taskStore.cleanup();
    await this.forgetSessions();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private legacyRequest(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET') {
      this.sessionsOpened++;
      const transport = new SSEServerTransport('/messages', res);
      this.legacySessions.set(transport.sessionId, transport);
      res.on('close', () => this.legacySessions.delete(transport.sessionId));
      void this.server(req.headers).connect(transport);
      return;
    }
    const known = this.legacySessions.get(url.searchParams.get('sessionId') ?? '');
    if (req.method === 'POST' && url.pathname === '/messages' && known)
      return void known.handlePostMessage(req, res, body);
    res.writeHead(known || url.pathname === '/messages' ? 404 : 405).end();
  }

  private async statelessRequest(req: IncomingMessage, res: ServerResponse, body: unknown) {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await this.server(req.headers).connect(transport);
    await transport.handleRequest(req, res, body);
  }

  private async open(headers: IncomingHttpHeaders): Promise<StreamableHTTPServerTransport> {
    this.sessionsOpened++;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: this.options.json === true,
      ...(this.options.resumable && { eventStore: new InMemoryEventStore() }),
      onsessioninitialized: (id) => void this.sessions.set(id, transport),
      onsessionclosed: (id) => {
        this.sessionsEnded.push(id);
        this.sessions.delete(id);
      },
    });
    await this.server(headers).connect(transport);
    return transport;
  }

  /** The server side of one session: lists the tools, answers calls. */
  private server(headers: IncomingHttpHeaders): Server {
    const server = new Server(
      { name: 'test', version: '1' },
      {
        capabilities: {
          tools: { listChanged: true },
          logging: {},
          tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        },
        taskStore: this.taskStore,
        taskMessageQueue: this.taskQueue,
      },
    );
    this.servers.add(server);
    server.onclose = () => this.servers.delete(server);
    server.setRequestHandler(ListToolsRequestSchema, (request, extra) => {
      this.lists++;
      this.listedWith.push(extra.requestInfo?.headers ?? headers);
      const sampling = server.getClientCapabilities()?.sampling !== undefined;
      const all = this.tools
        .filter((t) => sampling || !t.samplingOnly)
        .map(({ name, description, inputSchema, annotations, taskSupport }) => ({
          name,
          description,
          inputSchema: inputSchema ?? { type: 'object', properties: {} },
          ...(annotations && { annotations }),
          ...(taskSupport && { execution: { taskSupport } }),
        }));
      // With `pageSize`, pages of that many tools; the cursor is where the next page starts.
      const size = this.options.pageSize ?? all.length;
      const from = Number(request.params?.cursor ?? 0);
      const next = from + size < all.length ? String(from + size) : undefined;
      return { tools: all.slice(from, from + size), ...(next && { nextCursor: next }) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const args = request.params.arguments ?? {};
      const callHeaders = extra.requestInfo?.headers ?? headers;
      this.calls.push({ name: request.params.name, args, headers: callHeaders });
      const tool = this.tools.find((t) => t.name === request.params.name);
      if (!tool)
        return {
          content: [{ type: 'text', text: `unknown tool ${request.params.name}` }],
          isError: true,
        };
      const task = request.params.task;
      if (tool.taskSupport === 'required' && !task)
        throw new McpError(ErrorCode.MethodNotFound, `Tool ${tool.name} requires a task`);
      if (task && extra.taskStore)
        return startTask(tool, args, callHeaders, task.ttl, extra, {
          tasks: this.tasks,
          work: this.taskWork,
        });
      this.running++;
      try {
        const more = callSide(server, extra, request.params._meta?.progressToken);
        return await tool.answer(args, { signal: extra.signal, headers: callHeaders, ...more });
      } finally {
        this.running--;
      }
    });
    return server;
  }
}

/** Starts `server` before the block's tests and stops it after them; `url` is its endpoint once started. */
export function useMcpServer(server: McpTestServer): { url: string } {
  const handle = { url: '' };
  beforeAll(async () => {
    handle.url = await server.start();
  });
  afterAll(() => server.stop());
  return handle;
}

/** The schema of the test servers' order lookup tool. */
export const ORDER_SCHEMA = {
  type: 'object',
  properties: { order_id: { type: 'string', description: 'The order number' } },
  required: ['order_id'],
};
