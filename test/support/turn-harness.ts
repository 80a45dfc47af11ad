import { Engine } from './engine.js';
import { FakeLlm } from './fake-llm.js';
import { RecordingServer } from './recording-server.js';
import { weatherTool, writeToolsFile } from './tools-file.js';
import { WsClient, type Msg } from './ws-client.js';

export const xmlCall = (name: string, params: Record<string, string>) =>
  `<tool_call>\n<function=${name}>\n${Object.entries(params)
    .map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`)
    .join('')}</function>\n</tool_call>`;

/** Splits text into small deltas, as a model streams it. */
export const pieces = (text: string, size = 5) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
    text.slice(i * size, (i + 1) * size),
  );

export const MARKUP = /<\/?(tool_call|function|parameter)|<(function|parameter)=/;
export const types = (msgs: Msg[]) => msgs.map((m) => m.type);
export const deltas = (msgs: Msg[]) =>
  msgs.filter((m) => m.type === 'assistant_delta').map((m) => m.text as string);

export interface TurnHarness {
  llm: FakeLlm;
  tools: RecordingServer;
  engine: Engine;
  ws: WsClient;
}

/**
 * The real engine with a fake LLM and a real tool server (weather, 404, bad verb, refused
 * connection, big body), and a fresh WebSocket client for every test.
 */
export function useTurnHarness(): TurnHarness {
  const h = { llm: new FakeLlm(), tools: new RecordingServer() } as TurnHarness;
  beforeAll(async () => {
    const base = await h.tools.start();
    h.engine = await Engine.start({
      LLM_BASE_URL: await h.llm.start(),
      LLM_MODEL: 'qwen3-coder',
      LLM_TOOLS_FILE: writeToolsFile([
        weatherTool(base),
        { name: 'missing', url: `${base}/missing`, method: 'GET' },
        { name: 'bad_verb', url: `${base}/x`, method: 'GE T' },
        { name: 'down', url: 'http://127.0.0.1:1/x', method: 'GET' },
        { name: 'big', url: `${base}/big`, method: 'GET' },
      ]),
      LLM_TOOL_RESULT_MAX_CHARS: '100',
      LLM_TOOL_MAX_ITERATIONS: '2',
    });
    h.tools.respond((req, res) => {
      if (req.path === '/missing') return void res.writeHead(404).end('no such thing');
      if (req.path === '/big') return void res.end('z'.repeat(500));
      res.end(`${decodeURIComponent(req.path.slice(1))}: ☀️ +21°C`);
    });
  });
  afterAll(async () => {
    await h.engine.stop();
    await h.llm.stop();
    await h.tools.stop();
  });
  beforeEach(async () => {
    h.llm.reset();
    h.tools.requests.length = 0;
    h.ws = await WsClient.connect(h.engine.wsUrl);
  });
  afterEach(() => h.ws.close());
  return h;
}
