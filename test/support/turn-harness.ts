import { Engine } from './engine.js';
import { FakeLlm, sseStructuredCalls, sseText, type Script } from './fake-llm.js';
import { RecordingServer, type Handler } from './recording-server.js';
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

export const MARKUP =
  /<\/?(tool_call|function|parameter|arg_key|arg_value|invoke|minimax:tool_call|seed:\w+|TOOLCALL)\b|<(function|parameter)=|\[(TOOL_CALLS|ARGS|THINK)\]|<\|(tool_call|channel|message|START_\w+)|<｜(tool▁|DSML)|<(start|end)_function_call>|```tool_code/;
export const types = (msgs: Msg[]) => msgs.map((m) => m.type);
/** The messages' types, a run of `assistant_delta` counted once (deltas may come joined in one frame). */
export const kinds = (msgs: Msg[]) =>
  types(msgs).filter((t, i, all) => t !== 'assistant_delta' || all[i - 1] !== t);
export const deltas = (msgs: Msg[]) =>
  msgs.filter((m) => m.type === 'assistant_delta').map((m) => m.text as string);

/** The real engine between a fake LLM and a real tool server, for one describe block. */
export interface EngineRig {
  llm: FakeLlm;
  tools: RecordingServer;
  engine: Engine;
  /** The tool server's base URL. */
  toolsUrl: string;
  llmUrl: string;
}

/**
 * Starts the fake LLM, the tool server (answering with `respond`) and the engine (with `env`,
 * which may use the tool server's URL) before the block's tests, and stops them after.
 */
export function useEngineRig(
  env: (toolsUrl: string) => Record<string, string>,
  respond: Handler = (_req, res) => res.end('ok'),
): EngineRig {
  const rig = { llm: new FakeLlm(), tools: new RecordingServer() } as EngineRig;
  beforeAll(async () => {
    rig.toolsUrl = await rig.tools.start();
    rig.tools.respond(respond);
    rig.llmUrl = await rig.llm.start();
    rig.engine = await Engine.start({ LLM_BASE_URL: rig.llmUrl, ...env(rig.toolsUrl) });
  });
  afterAll(async () => {
    // An engine that did not start (a failing test) must not leave the servers running: the run
    // would never end.
    try {
      await rig.engine?.stop();
    } finally {
      await rig.llm.stop();
      await rig.tools.stop();
    }
  });
  return rig;
}

export interface TurnHarness extends EngineRig {
  ws: WsClient;
}

/**
 * Before each test of the block: the rig's fake LLM and tool server forget what they saw, and a
 * fresh WebSocket client connects (`client.ws`), closed after the test.
 */
export function useClientPerTest(rig: EngineRig): { ws: WsClient } {
  const client = {} as { ws: WsClient };
  beforeEach(async () => {
    rig.llm.reset();
    rig.tools.requests.length = 0;
    client.ws = await WsClient.connect(rig.engine.wsUrl);
  });
  afterEach(() => client.ws.close());
  return client;
}

/**
 * The real engine with a fake LLM and a real tool server (weather, 404, bad verb, refused
 * connection, big body), and a fresh WebSocket client for every test.
 */
export function useTurnHarness(): TurnHarness {
  const h = useEngineRig(
    (base) => ({
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
      LLM_RETRY_BACKOFF_MS: '20',
    }),
    (req, res) => {
      if (req.path === '/missing') return void res.writeHead(404).end('no such thing');
      if (req.path === '/big') return void res.end('z'.repeat(500));
      if (req.path === '/Slowtown') return void setTimeout(() => res.end('Slowtown: fog'), 300);
      res.end(`${decodeURIComponent(req.path.slice(1))}: ☀️ +21°C`);
    },
  ) as TurnHarness;
  const client = useClientPerTest(h);
  Object.defineProperty(h, 'ws', { get: () => client.ws });
  return h;
}

/** What the model read in the last tool message of its `index`th request (the second by default). */
export function toolRead(llm: FakeLlm, index = 1): string {
  return llm.requests[index]!.body.messages.findLast((m: any) => m.role === 'tool').content;
}

/**
 * One turn of `ws` in which the model calls `name` with `args` (or as `script` writes it), then
 * says "ok": what the model read of the call, and the `tool_result` event. The fake LLM forgets
 * earlier requests first.
 */
export async function callOnce(
  rig: Pick<EngineRig, 'llm'>,
  ws: WsClient,
  name: string,
  args: Record<string, unknown> = {},
  script: Script = sseStructuredCalls([{ id: 'call_1', name, arguments: args }]),
): Promise<{ read: string; result: Msg }> {
  rig.llm.reset();
  rig.llm.enqueue(script, sseText(['ok']));
  const turn = await ws.turn(`use ${name}`, 10_000);
  return { read: toolRead(rig.llm), result: turn.find((m) => m.type === 'tool_result')! };
}

/** The names of the tools the model is offered in a new turn of `ws` (the fake LLM forgets first). */
export async function offeredNames(rig: EngineRig, ws: WsClient): Promise<string[]> {
  rig.llm.reset();
  rig.llm.enqueue(sseText(['ok']));
  await ws.turn('hello');
  return rig.llm.requests[0]!.body.tools.map((t: any) => t.function.name as string);
}
