import { sseText, VLLM_NO_TOOL_PARSER, type Script } from './support/fake-llm.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { deltas, MARKUP, pieces, useEngineRig, xmlCall } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';

/** The model's answer: a call written in the text as Qwen3-Coder writes it, then the weather. */
const ANSWER = ['It is sunny ', 'in Paris.'];
const answered = (body: Record<string, any>) => body.messages.at(-1).role === 'tool';
const callInText = () => pieces(`Checking. ${xmlCall('get_weather', { city: 'Paris' })}`, 3);

/** vLLM started without --enable-auto-tool-choice: tool_choice "auto" is refused with HTTP 400. */
function vllmWithoutToolParser(body: Record<string, any>): Script {
  if (body.tool_choice === 'auto') return VLLM_NO_TOOL_PARSER;
  // Without a parser the model's call stays in the content.
  return sseText(answered(body) ? ANSWER : callInText());
}

/**
 * vLLM's hermes tool parser before a Qwen3-Coder model: while streaming it takes everything after
 * `<tool_call>` for JSON, fails to parse the XML inside and drops it, so the call never reaches
 * the client. With tool_choice "none" the parser is not applied and the call stays in the text.
 */
function vllmWithHermesParser(body: Record<string, any>): Script {
  if (answered(body)) return sseText(ANSWER);
  return sseText(body.tool_choice === 'none' ? callInText() : ['Checking. ']);
}

/**
 * Llama 3 before a server with no parser for it: its call is bare JSON in the text, and after
 * prose at times (vLLM's `llama3_json` reads one only at the reply's start).
 */
function llamaWithoutToolParser(body: Record<string, any>): Script {
  if (answered(body)) return sseText(ANSWER);
  const call = JSON.stringify({ name: 'get_weather', parameters: { city: 'Paris' } });
  return sseText(pieces(`Checking. ${call}`, 3));
}

/** An engine with the weather tool before `server`, and `env`. */
function rigBefore(
  server: (body: Record<string, any>) => Script,
  env: Record<string, string> = {},
) {
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'qwen3-coder',
      LLM_TOOLS_FILE: writeToolsFile([weatherTool(base)]),
      ...env,
    }),
    (req, res) => res.end(`${decodeURIComponent(req.path.slice(1))}: sunny`),
  );
  beforeAll(() => (rig.llm.fallback = server));
  return rig;
}

/** `turns` weather turns on one connection, each with its call run from the text. */
async function weatherTurns(wsUrl: string, turns: number): Promise<void> {
  const ws = await WsClient.connect(wsUrl);
  try {
    for (let turn = 0; turn < turns; turn++) {
      const msgs = await ws.turn("What's the weather in Paris?");
      expect(msgs.filter((m) => m.type === 'tool_call')).toEqual([
        expect.objectContaining({ name: 'get_weather', arguments: { city: 'Paris' } }),
      ]);
      expect(msgs.find((m) => m.type === 'tool_result')).toMatchObject({ ok: true });
      for (const d of deltas(msgs)) expect(d).not.toMatch(MARKUP);
      expect(msgs.at(-1)).toEqual({
        type: 'assistant_end',
        text: 'Checking. It is sunny in Paris.',
      });
    }
  } finally {
    ws.close();
  }
}

describe('an LLM server without a tool parser, through the running engine', () => {
  const rig = rigBefore(vllmWithoutToolParser);

  it('downgrades to tool_choice "none" once, still offers the tools, and runs the calls written in the text', async () => {
    await weatherTurns(rig.engine.wsUrl, 2);
    // One refused request, then every request of both turns asks with "none" and the tools.
    expect(rig.llm.requests.map((r) => r.body.tool_choice)).toEqual([
      'auto',
      'none',
      'none',
      'none',
      'none',
    ]);
    for (const r of rig.llm.requests) {
      expect(r.body.tools.map((t: any) => t.function.name)).toEqual(['get_weather']);
    }
    expect(rig.tools.requests.map((r) => r.url)).toEqual(['/Paris?format=3', '/Paris?format=3']);
  });

  it('ends the answer where the model goes on to write the tool result itself', async () => {
    const madeUp = '\n<tool_response>\nParis: 30 degrees\n</tool_response>\nIt is 30 degrees.';
    rig.llm.enqueue(sseText(pieces(`${callInText().join('')}${madeUp}`, 3)), sseText(ANSWER));
    const ws = await WsClient.connect(rig.engine.wsUrl);
    try {
      const msgs = await ws.turn("What's the weather in Paris?");
      expect(msgs.at(-1)).toEqual({
        type: 'assistant_end',
        text: 'Checking. It is sunny in Paris.',
      });
      for (const d of deltas(msgs)) expect(d).not.toMatch(/30 degrees|tool_response/);
      expect(JSON.stringify(rig.llm.requests.at(-1)!.body.messages)).not.toContain('30 degrees');
      expect(rig.tools.requests.at(-1)!.url).toBe('/Paris?format=3');
    } finally {
      ws.close();
    }
  });
});

describe('LLM_SERVER_TOOL_PARSER=off, before a server whose tool parser does not match the model', () => {
  const rig = rigBefore(vllmWithHermesParser, { LLM_SERVER_TOOL_PARSER: 'off' });

  it('asks with tool_choice "none" from the first request and runs the calls written in the text', async () => {
    await weatherTurns(rig.engine.wsUrl, 1);
    expect(rig.llm.requests.map((r) => r.body.tool_choice)).toEqual(['none', 'none']);
    expect(rig.llm.offered(0)).toEqual(['get_weather']);
    expect(rig.tools.requests.map((r) => r.url)).toEqual(['/Paris?format=3']);
  });
});

describe('Llama 3 writing its call as JSON after prose, before a server without its parser', () => {
  const rig = rigBefore(llamaWithoutToolParser);

  it('runs the call, and no JSON reaches the client', async () => {
    await weatherTurns(rig.engine.wsUrl, 1);
    expect(rig.tools.requests.map((r) => r.url)).toEqual(['/Paris?format=3']);
  });
});
