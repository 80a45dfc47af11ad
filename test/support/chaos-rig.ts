import type { ServerResponse } from 'node:http';
import { CHAOS_CODE_TOOLS, STT_MARKERS, type SttOutcome } from './chaos.js';
import { McpTestServer } from './mcp-server.js';
import type { RecordedRequest } from './recording-server.js';
import { weatherTool } from './tools-file.js';

/** The chaos rig's tools at `base` (and its MCP server at `mcpUrl`); `all` false leaves the slow ones out. */
export function toolSet(base: string, mcpUrl: string, all: boolean): Record<string, unknown>[] {
  return [
    // Results kept a moment, and a backend that takes one call at a time: both meet cut turns.
    { ...weatherTool(base), cache_secs: 0.5 },
    { ...weatherTool(`${base}/slow`), name: 'slow_weather', max_concurrency: 1 },
    { name: 'missing', url: `${base}/missing`, method: 'GET' },
    { name: 'down', url: 'http://127.0.0.1:1/x', method: 'GET' },
    // What anyone may have written: once read, the code tools' calls wait for approval too.
    { ...weatherTool(`${base}/flaky`), name: 'flaky_weather', untrusted: true },
    {
      ...weatherTool(`${base}/danger`),
      name: 'danger_weather',
      // It acts: made again in a later round, it is not run twice (LLM_TOOL_REPEAT_CALLS).
      method: 'POST',
      confirm: true,
      confirm_prompt: 'Check the weather in {city}?',
    },
    { type: 'mcp', name: 'mcp_weather', url: mcpUrl },
    // Behind OAuth 2.0: tokens that live a second, one in three refused by the API.
    {
      ...weatherTool(`${base}/secured`),
      name: 'secured_weather',
      oauth2: {
        token_url: `${base}/oauth/token`,
        client_id: 'chaos',
        client_secret: '${TOOL_SECRET_CHAOS}',
      },
    },
    ...CHAOS_CODE_TOOLS,
  ].filter((t) => all || !/slow/.test(JSON.stringify(t)));
}

/**
 * The chaos rig's MCP server: a weather tool that answers in 40 ms, or when the call is
 * cancelled, telling its progress at its start and after 20 ms; for Roma it first asks its user
 * (an elicitation: answered, left to expire, or cut short with its turn).
 */
export function chaosMcpServer(): McpTestServer {
  return new McpTestServer([
    {
      name: 'mcp_weather',
      description: 'Weather of a city, from the MCP server',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      answer: async (args, { signal, progress, elicit }) => {
        if (args.city === 'Roma') await elicit?.('Look up Roma?').catch(() => undefined);
        return new Promise((resolve) => {
          void progress?.(0, 2, 'asking the station').catch(() => {});
          const step = setTimeout(() => void progress?.(1, 2).catch(() => {}), 20);
          const done = () => {
            clearTimeout(timer);
            clearTimeout(step);
            resolve({ content: [{ type: 'text', text: `${String(args.city)}: +21°C` }] });
          };
          const timer = setTimeout(done, 40);
          signal.addEventListener('abort', done, { once: true });
        });
      },
    },
  ]);
}

/** Tokens the chaos rig's token endpoint gave. */
let tokens = 0;

/**
 * The chaos rig's tool server: fast, slow (60 ms), 404, a connection dropped halfway through the
 * body, and the speech-to-text server, which hears in the utterance's samples what to answer.
 */
export function answerChaosTool(req: RecordedRequest, res: ServerResponse): void {
  if (req.path === '/missing') return void res.writeHead(404).end('no such thing');
  if (req.path === '/oauth/token')
    return void res.end(JSON.stringify({ access_token: `tok-${++tokens}`, expires_in: 1 }));
  const token = Number(/^Bearer tok-(\d+)$/.exec(String(req.headers.authorization))?.[1]);
  if (req.path.startsWith('/secured/') && (!token || token % 3 === 0))
    return void res.writeHead(401).end('token refused');
  if (req.path === '/v1/audio/transcriptions') return transcribe(req.body, res);
  const answer = () => res.end(`${decodeURIComponent(req.path)}: +21°C`);
  if (req.path.startsWith('/flaky/')) {
    res.writeHead(200).write('{"partial":');
    return void setTimeout(() => res.socket?.destroy(), 5);
  }
  if (req.path.startsWith('/slow/')) setTimeout(answer, 60);
  else answer();
}

/** The fake speech-to-text server: the utterance's samples say what it hears. */
function transcribe(body: string, res: ServerResponse): void {
  const marked = (outcome: SttOutcome) =>
    body.includes(String.fromCharCode(STT_MARKERS[outcome]).repeat(8));
  if (marked('failure')) return void res.writeHead(500).end('{"error":"model crashed"}');
  const text = marked('silence') ? '' : marked('yes') ? 'Yes.' : 'what is the weather in Oslo?';
  setTimeout(() => res.end(JSON.stringify({ text })), 10);
}
