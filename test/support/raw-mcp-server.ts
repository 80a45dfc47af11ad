import { createServer, type Server } from 'node:http';

/** How a server answers a request: its HTTP status, type and body. */
export interface Answer {
  status: number;
  type: string;
  /** The body, given the request's id (a JSON-RPC answer names it). */
  body: (id: unknown) => string;
}

/**
 * A Streamable HTTP MCP server written by hand, for what the SDK's server would not send: its
 * `tools/list` answers `listing` (one tool, `lookup`, unless the test sets another), and its
 * `tools/call`s get the answers queued (a plain text result when none is).
 */
export class RawMcpServer {
  readonly answers: Answer[] = [];
  calls = 0;
  /** Each `tools/call` request's body, as it came. */
  readonly callBodies: string[] = [];
  listing: Answer | undefined;
  /** What `tools/list` answers at a request target of its own (`/mcp?run=3`), over `listing`. */
  readonly listings = new Map<string, Answer>();
  readonly server: Server = createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const message = JSON.parse(raw) as { id?: unknown; method: string; params?: any };
      const reply = (result: unknown) =>
        res
          .writeHead(200, { 'Content-Type': 'application/json', 'Mcp-Session-Id': 's1' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      const answer = ({ status, type, body }: Answer) =>
        res.writeHead(status, { 'Content-Type': type }).end(body(message.id));
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method === 'initialize')
        return reply({
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'raw', version: '1.0.0' },
        });
      if (message.method === 'tools/list') {
        const listing = this.listings.get(req.url ?? '') ?? this.listing;
        return listing
          ? answer(listing)
          : reply({
              tools: [{ name: 'lookup', description: 'Looks up', inputSchema: { type: 'object' } }],
            });
      }
      if (message.method !== 'tools/call') return reply({});
      this.calls++;
      this.callBodies.push(raw);
      const next = this.answers.shift();
      if (!next) return reply({ content: [{ type: 'text', text: 'found' }] });
      answer(next);
    });
  });
}
