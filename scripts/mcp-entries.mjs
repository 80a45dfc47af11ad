// Prints tools-file entries ("type": "mcp"), one for each tool an MCP server lists, for a tools
// file to start from, where the admin chooses which the model may call, and names them (an entry
// with "tools": "*" takes them all as the server lists them whenever the tools are loaded).
//
//   npm run tools:mcp -- [--prefix crm_] [--header 'Authorization: Bearer ${TOOL_SECRET_CRM}'] URL
//   npm run tools:mcp -- [--prefix fs_] [--env KEY=VALUE] -- COMMAND [ARG…]
//
// With --sampling, the server is told the client offers sampling (some list tools that need it
// only then), and the entries allow it ("sampling": true).
//
// The server is reached as the engine reaches it (its MCP client: Streamable HTTP, else the older
// HTTP+SSE transport; a command over stdio). `${TOOL_SECRET_…}` references in headers and env are
// filled in from this process's environment to list, and written as they are in the entries.
import { McpClients } from '../dist/tools/mcp/mcp-clients.js';
import { describeFailure } from '../dist/tools/mcp/mcp-faults.js';

const USAGE = `usage: npm run tools:mcp -- [--prefix P] [--sampling] [--header 'Name: value']… URL
       npm run tools:mcp -- [--prefix P] [--sampling] [--env KEY=VALUE]… -- COMMAND [ARG…]`;

/** The options and the server: a URL, or a command and its arguments. */
function parse(argv) {
  const out = { prefix: '', headers: {}, env: {}, timeoutMs: 30_000 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value\n${USAGE}`);
      return argv[++i];
    };
    if (arg === '--prefix') out.prefix = value();
    else if (arg === '--header') {
      const [name, ...rest] = value().split(':');
      if (rest.length === 0) throw new Error(`--header takes 'Name: value'\n${USAGE}`);
      out.headers[name.trim()] = rest.join(':').trim();
    } else if (arg === '--env') {
      const [key, ...rest] = value().split('=');
      if (rest.length === 0) throw new Error(`--env takes KEY=VALUE\n${USAGE}`);
      out.env[key] = rest.join('=');
    } else if (arg === '--timeout') out.timeoutMs = Number(value()) * 1000;
    else if (arg === '--sampling') out.sampling = true;
    else if (arg === '--') {
      if (i + 1 >= argv.length) throw new Error(`-- is followed by the server's command\n${USAGE}`);
      return { ...out, command: argv[i + 1], args: argv.slice(i + 2) };
    } else if (/^https?:\/\//.test(arg) && i === argv.length - 1) return { ...out, url: arg };
    else throw new Error(`${JSON.stringify(arg)} is no option, URL or "--"\n${USAGE}`);
  }
  throw new Error(USAGE);
}

/** `text` with its `${TOOL_SECRET_…}` references filled in from the environment. */
const filled = (text) =>
  text.replace(/\$\{(TOOL_SECRET_[A-Za-z0-9_]+)\}/g, (ref, name) => {
    if (process.env[name] === undefined) throw new Error(`${name} is not set (${ref})`);
    return process.env[name];
  });
const fillAll = (map) => Object.fromEntries(Object.entries(map).map(([k, v]) => [k, filled(v)]));

/** A tool name the engine takes, unique among `taken`: others' characters as `_`, cut to 64. */
function entryName(name, prefix, taken) {
  const base = `${prefix}${name}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  let unique = base;
  for (let n = 2; taken.has(unique); n++) unique = `${base.slice(0, 64 - `_${n}`.length)}_${n}`;
  taken.add(unique);
  return unique;
}

async function main() {
  const options = parse(process.argv.slice(2));
  const target = options.url
    ? { url: options.url, headers: fillAll(options.headers) }
    : {
        url: '',
        headers: {},
        stdio: {
          command: options.command,
          args: options.args.map(filled),
          env: fillAll(options.env),
          cwd: process.cwd(),
        },
        label: [options.command, ...options.args].join(' '),
      };
  if (options.sampling) target.sampling = { maxTokens: 1 };
  const clients = new McpClients('audio-agent-engine', 16 * 1024 * 1024, {
    onServerLog: (_target, line) => process.stderr.write(`server: ${line}\n`),
    // Declared to list; a server that asks while being listed is answered that no model is here.
    sample: async () => ({ failed: 'the tools are only being listed' }),
  });
  try {
    const listed = await clients.list(target, { timeoutMs: options.timeoutMs }).catch((error) => {
      const why = describeFailure(error, options.timeoutMs / 1000);
      throw new Error(`cannot list the tools of the MCP server: ${why}`);
    });
    const taken = new Set();
    const where = options.url
      ? {
          url: options.url,
          ...(Object.keys(options.headers).length > 0 && { headers: options.headers }),
        }
      : {
          command: options.command,
          args: options.args,
          ...(Object.keys(options.env).length > 0 && { env: options.env }),
        };
    const entries = listed.map((tool) => {
      const name = entryName(tool.name, options.prefix, taken);
      const named = { type: 'mcp', name, ...(name !== tool.name && { tool: tool.name }) };
      return { ...named, ...where, ...(options.sampling && { sampling: true }) };
    });
    process.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
    const literal = Object.entries({ ...options.headers, ...options.env }).filter(
      ([, v]) => !v.includes('${TOOL_SECRET_'),
    );
    process.stderr.write(
      `${entries.length} tool(s) listed; the engine reads each one's description and schema from the server when it loads them.` +
        (literal.length > 0
          ? ` ${literal.map(([k]) => k).join(', ')} ${literal.length > 1 ? 'are' : 'is'} written as given: put a secret in a TOOL_SECRET_* variable and write \${TOOL_SECRET_…} instead.`
          : '') +
        '\n',
    );
    return 0;
  } finally {
    await clients.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
