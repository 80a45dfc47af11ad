import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chaosOptions } from './support/chaos-checks.js';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { expectStillAnswering } from './support/still-answering.js';
import { WsClient, type Msg } from './support/ws-client.js';

/** How a server answers a `tools/call`: its HTTP status, type and body. */
interface Answer {
  status: number;
  type: string;
  /** The body, given the request's id (a JSON-RPC answer names it). */
  body: (id: unknown) => string;
}

const anything = fc.jsonValue({ maxDepth: 2 });
const text = fc.oneof(fc.string({ maxLength: 30, unit: 'binary' }), anything);

/** A content item: of each kind MCP has, its fields right or wrong, or of no kind. */
const item = fc.oneof(
  { weight: 3, arbitrary: text.map((t) => ({ type: 'text', text: t })) },
  fc
    .record({ data: fc.constantFrom('iVBORw0KGgo=', 'not base64', 7), mimeType: text })
    .map((i) => ({ type: 'image', ...i })),
  fc.record({ data: text, mimeType: text }).map((i) => ({ type: 'audio', ...i })),
  fc
    .record({ uri: text, text, blob: text, mimeType: text }, { requiredKeys: ['uri'] })
    .map((resource) => ({ type: 'resource', resource })),
  fc
    .record({ uri: text, name: text, description: text }, { requiredKeys: [] })
    .map((i) => ({ type: 'resource_link', ...i })),
  fc.record({ type: text, text }, { requiredKeys: [] }),
  anything,
);

/** A JSON-RPC answer's `result` or `error`, as a server that keeps to MCP or not may write it. */
const payload = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record(
        {
          content: fc.oneof({ weight: 4, arbitrary: fc.array(item, { maxLength: 4 }) }, anything),
          isError: fc.oneof(fc.boolean(), anything),
          structuredContent: fc.oneof(fc.dictionary(fc.string(), anything), anything),
        },
        { requiredKeys: [] },
      )
      .map((result) => ({ result })),
  },
  fc
    .record(
      { code: fc.oneof(fc.integer(), anything), message: text, data: anything },
      {
        requiredKeys: [],
      },
    )
    .map((error) => ({ error })),
  anything.map((result) => ({ result })),
);

/** An answer: JSON-RPC as JSON or as an event stream, or what no MCP server should send. */
const answer: fc.Arbitrary<Answer> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.tuple(payload, fc.boolean()).map(([rpc, stream]) => ({
      status: 200,
      type: stream ? 'text/event-stream' : 'application/json',
      body: (id: unknown) => {
        const json = JSON.stringify({ jsonrpc: '2.0', id, ...rpc });
        return stream ? `event: message\ndata: ${json}\n\n` : json;
      },
    })),
  },
  fc
    .tuple(
      fc.constantFrom(200, 202, 400, 404, 500, 503),
      fc.constantFrom('application/json', 'text/plain', 'text/event-stream'),
      fc.string({ maxLength: 40 }),
    )
    .map(([status, type, body]) => ({ status, type, body: () => body })),
);

/** A Streamable HTTP MCP server of one tool, `lookup`, whose calls get the answers queued. */
class RawMcpServer {
  readonly answers: Answer[] = [];
  calls = 0;
  private readonly server: Server = createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const message = JSON.parse(raw) as { id?: unknown; method: string; params?: any };
      const reply = (result: unknown) =>
        res
          .writeHead(200, { 'Content-Type': 'application/json', 'Mcp-Session-Id': 's1' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method === 'initialize')
        return reply({
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'raw', version: '1.0.0' },
        });
      if (message.method === 'tools/list')
        return reply({
          tools: [{ name: 'lookup', description: 'Looks up', inputSchema: { type: 'object' } }],
        });
      if (message.method !== 'tools/call') return reply({});
      this.calls++;
      const next = this.answers.shift();
      if (!next) return reply({ content: [{ type: 'text', text: 'found' }] });
      res.writeHead(next.status, { 'Content-Type': next.type }).end(next.body(message.id));
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/mcp`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Random answers of an MCP server to the model's calls (content of every kind, right or wrong,
 * errors, any JSON, bodies that are no JSON-RPC): each call gets one `tool_result` and the model
 * reads one text for it, the turn ends with its answer, and the next is answered.
 */
describe("random answers of an MCP server's tools", () => {
  const mcp = new RawMcpServer();
  let url = '';
  beforeAll(async () => (url = await mcp.start()));
  afterAll(() => mcp.stop());
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOL_BREAKER_FAILURES: '0',
    LLM_TOOLS_FILE: writeToolsFile([{ type: 'mcp', name: 'lookup', url, timeout_secs: 1 }]),
  }));

  it('end each call with one result the model reads, and the turn with its answer', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    const oks = new Set<boolean>();
    let runs = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(answer, { minLength: 1, maxLength: 3 }), async (answers) => {
          rig.llm.reset();
          mcp.answers.splice(0, Infinity, ...answers);
          const ids = answers.map((_, i) => `call_${++runs}_${i}`);
          rig.llm.enqueue(
            sseStructuredCalls(ids.map((id) => ({ id, name: 'lookup', arguments: { q: id } }))),
            sseText(['Done.']),
          );
          const from = ws.messages.length;
          const end = await ws.turn('go', 15_000);
          expect(end.at(-1)).toEqual({ type: 'assistant_end', text: 'Done.' });
          const events = ws.messages.slice(from);
          expect(events.filter((m) => m.type === 'error')).toEqual([]);
          const told = rig.llm.requests[1]!.body.messages as Msg[];
          for (const id of ids) {
            const results = events.filter((m) => m.type === 'tool_result' && m.id === id);
            expect(results).toHaveLength(1);
            oks.add(results[0]!.ok as boolean);
            const read = told.filter((m) => m.role === 'tool' && m.tool_call_id === id);
            expect(read).toEqual([expect.objectContaining({ content: expect.any(String) })]);
            expect(read[0]!.content).not.toBe('');
            // A result that breaks MCP's schema is said in a line, not the check's issues dumped.
            expect(read[0]!.content).not.toMatch(/^Error: tool request failed: [[{]/);
          }
        }),
        chaosOptions(Number(process.env.CHAOS_RUNS ?? 30)),
      );
      rig.llm.reset();
      rig.llm.fallback = () => sseText(['Fine.']);
      await expectStillAnswering(ws);
    } finally {
      ws.close();
    }
    expect([...oks].sort()).toEqual([false, true]);
  }, 180_000);
});
