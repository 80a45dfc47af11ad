import { sseText, VLLM_NO_TOOL_PARSER, type Script } from './support/fake-llm.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { deltas, MARKUP, pieces, useEngineRig, xmlCall } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';

/** vLLM started without --enable-auto-tool-choice: tool_choice "auto" is refused with HTTP 400. */
function vllmWithoutToolParser(body: Record<string, any>): Script {
  if (body.tool_choice === 'auto') return VLLM_NO_TOOL_PARSER;
  // Without a parser the model's call stays in the content, as Qwen3-Coder writes it.
  const answered = body.messages.at(-1).role === 'tool';
  return sseText(
    answered
      ? ['It is sunny ', 'in Paris.']
      : pieces(`Checking. ${xmlCall('get_weather', { city: 'Paris' })}`, 3),
  );
}

describe('an LLM server without a tool parser, through the running engine', () => {
  const rig = useEngineRig(
    (base) => ({ LLM_MODEL: 'qwen3-coder', LLM_TOOLS_FILE: writeToolsFile([weatherTool(base)]) }),
    (req, res) => res.end(`${decodeURIComponent(req.path.slice(1))}: sunny`),
  );
  const { llm } = rig;
  beforeAll(() => (llm.fallback = vllmWithoutToolParser));

  it('downgrades to tool_choice "none" once, still offers the tools, and runs the calls written in the text', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    try {
      for (let turn = 0; turn < 2; turn++) {
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
    // One refused request, then every request of both turns asks with "none" and the tools.
    expect(llm.requests.map((r) => r.body.tool_choice)).toEqual([
      'auto',
      'none',
      'none',
      'none',
      'none',
    ]);
    for (const r of llm.requests) {
      expect(r.body.tools.map((t: any) => t.function.name)).toEqual(['get_weather']);
    }
    expect(rig.tools.requests.map((r) => r.url)).toEqual(['/Paris?format=3', '/Paris?format=3']);
  });
});

/**
 * vLLM's hermes tool parser before a Qwen3-Coder model: while streaming it takes everything after
 * `<tool_call>` for JSON, fails to parse the XML inside and drops it, so the call never reaches
 * the client. With tool_choice "none" the parser is not applied and the call stays in the text.
 */
function vllmWithHermesParser(body: Record<string, any>): Script {
  const answered = body.messages.at(-1).role === 'tool';
  if (answered) return sseText(['It is sunny ', 'in Paris.']);
  return sseText(
    body.tool_choice === 'none'
      ? pieces(`Checking. ${xmlCall('get_weather', { city: 'Paris' })}`, 3)
      : ['Checking. '],
  );
}

describe('LLM_SERVER_TOOL_PARSER=off, before a server whose tool parser does not match the model', () => {
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'qwen3-coder',
      LLM_SERVER_TOOL_PARSER: 'off',
      LLM_TOOLS_FILE: writeToolsFile([weatherTool(base)]),
    }),
    (req, res) => res.end(`${decodeURIComponent(req.path.slice(1))}: sunny`),
  );
  const { llm } = rig;
  beforeAll(() => (llm.fallback = vllmWithHermesParser));

  it('asks with tool_choice "none" from the first request and runs the calls written in the text', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    try {
      const msgs = await ws.turn("What's the weather in Paris?");
      expect(msgs.filter((m) => m.type === 'tool_call')).toEqual([
        expect.objectContaining({ name: 'get_weather', arguments: { city: 'Paris' } }),
      ]);
      for (const d of deltas(msgs)) expect(d).not.toMatch(MARKUP);
      expect(msgs.at(-1)).toEqual({
        type: 'assistant_end',
        text: 'Checking. It is sunny in Paris.',
      });
    } finally {
      ws.close();
    }
    expect(llm.requests.map((r) => r.body.tool_choice)).toEqual(['none', 'none']);
    expect(llm.requests[0]!.body.tools.map((t: any) => t.function.name)).toEqual(['get_weather']);
    expect(rig.tools.requests.map((r) => r.url)).toEqual(['/Paris?format=3']);
  });
});
