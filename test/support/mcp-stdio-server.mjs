// A real MCP server over stdio (the SDK's StdioServerTransport), run by the engine as a command in
// tests. Arguments: --fail-start (writes a reason to stderr and exits before any session),
// --noise (writes a line that is not JSON-RPC to stdout first).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const argv = process.argv.slice(2);
if (argv.includes('--fail-start')) {
  console.error('cannot open database /data/orders.db');
  process.exit(2);
}
if (argv.includes('--noise')) process.stdout.write('starting up, please wait\n');

const text = (t) => ({ content: [{ type: 'text', text: String(t) }] });
const tools = {
  add: {
    description: 'Adds two numbers.',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    annotations: { readOnlyHint: true },
    answer: ({ a, b }) => text(a + b),
  },
  whoami: {
    description: 'Where and how the server runs.',
    answer: () =>
      text(
        JSON.stringify({
          pid: process.pid,
          cwd: process.cwd(),
          args: argv,
          greeting: process.env.GREETING ?? null,
          key: process.env.ORDERS_KEY ?? null,
          engineEnv: Object.keys(process.env).filter((k) => /^(LLM_|TOOL_SECRET_)/.test(k)),
          proxy: process.env.HTTPS_PROXY ?? null,
          noProxy: process.env.no_proxy ?? null,
        }),
      ),
  },
  echo: {
    description: 'Echoes a word.',
    inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
    annotations: { readOnlyHint: true },
    answer: ({ word }) => text(word),
  },
  crash: {
    description: 'Exits while answering.',
    answer: () => {
      console.error('fatal: out of cheese');
      setTimeout(() => process.exit(3), 10);
      return new Promise(() => {});
    },
  },
  big: {
    description: 'Answers with a large text.',
    answer: ({ bytes }) => text('x'.repeat(Number(bytes))),
  },
  fail: {
    description: 'Reports an error.',
    answer: () => ({ ...text('no such order'), isError: true }),
  },
};

const server = new Server({ name: 'stdio-test', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: Object.entries(tools).map(([name, t]) => ({
    name,
    description: t.description,
    inputSchema: t.inputSchema ?? { type: 'object', properties: {} },
    ...(t.annotations && { annotations: t.annotations }),
  })),
}));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const tool = tools[request.params.name];
  if (!tool) return { ...text(`unknown tool ${request.params.name}`), isError: true };
  console.error(`call ${request.params.name}`);
  return tool.answer(request.params.arguments ?? {});
});
console.error('stdio test server ready');
await server.connect(new StdioServerTransport());
