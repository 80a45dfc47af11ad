import { OPENAI_NO_MAX_TOKENS, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { McpTestServer, useMcpServer } from './support/mcp-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { toolRead, useClientPerTest, useEngineRig } from './support/turn-harness.js';

/** The server's tools answer with what sampling gave them, or the error it failed with. */
const told = async (asking: Promise<unknown>) => {
  try {
    return { content: [{ type: 'text', text: JSON.stringify(await asking) }] };
  } catch (error) {
    return { content: [{ type: 'text', text: `failed: ${(error as Error).message}` }] };
  }
};
const ORDERS = 'Order 1 shipped on Monday. Order 2 is late: the carrier lost it.';

/**
 * An MCP server asks the engine's model for a completion while it runs a call (sampling), for
 * the tools whose definition allows it (`"sampling": true`).
 */
describe('MCP sampling', () => {
  const mcp = new McpTestServer([
    {
      name: 'summarize_orders',
      answer: (_args, { sample }) =>
        told(
          sample!({
            messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${ORDERS}` } }],
            systemPrompt: 'Answer in one sentence.',
            maxTokens: 200,
            temperature: 0.2,
            stopSequences: ['\n\n'],
          }),
        ),
    },
    {
      // Asks nine completions at once; answers with the first to end.
      name: 'flood',
      answer: async (_args, { sample }) => {
        const ask = () =>
          sample!({
            messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }],
            maxTokens: 9,
          });
        const asks = Array.from({ length: 9 }, () => told(ask()));
        return Promise.race(asks);
      },
    },
    {
      name: 'describe_photo',
      answer: (_args, { sample }) =>
        told(
          sample!({
            messages: [
              {
                role: 'user',
                content: { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
              },
            ],
            maxTokens: 100,
          }),
        ),
    },
  ]);
  const server = useMcpServer(mcp);
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'qwen3',
    LLM_MODELS: 'qwen3,qwen3-legal',
    LLM_TOOLS_FILE: writeToolsFile([
      {
        type: 'mcp',
        name: 'summarize_orders',
        url: server.url,
        sampling: true,
        sampling_max_tokens: 64,
      },
      { type: 'mcp', name: 'describe_photo', url: server.url, sampling: true },
      { type: 'mcp', name: 'flood', url: server.url, sampling: true },
      { type: 'mcp', name: 'summarize_unsampled', tool: 'summarize_orders', url: server.url },
    ]),
  }));
  const client = useClientPerTest(rig);
  const scrape = async () => (await fetch(`${rig.engine.httpUrl}/metrics`)).text();

  /** A turn in which the model calls `name`, the fake LLM answering `more` before its last word. */
  const turn = async (name: string, ...more: Parameters<typeof rig.llm.enqueue>) => {
    rig.llm.reset();
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name, arguments: {} }]),
      ...more,
      sseText(['ok']),
    );
    return client.ws.turn(`use ${name}`, 10_000);
  };

  it("answers with the engine's model, without streaming or tools, at most sampling_max_tokens long", async () => {
    const reply = {
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Order 2 is late.' },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 31, completion_tokens: 6, total_tokens: 37 },
    };
    const msgs = await turn('summarize_orders', { kind: 'json', body: reply });
    expect(msgs.find((m) => m.type === 'tool_result')).toMatchObject({ ok: true });
    const asked = rig.llm.requests[1]!.body;
    expect(asked).toMatchObject({
      model: 'qwen3',
      stream: false,
      max_tokens: 64, // the tool's limit, under the server's 200
      temperature: 0.2,
      stop: ['\n\n'],
      messages: [
        { role: 'system', content: 'Answer in one sentence.' },
        { role: 'user', content: `Summarize: ${ORDERS}` },
      ],
    });
    expect(asked.tools).toBeUndefined();
    expect(JSON.parse(toolRead(rig.llm, 2))).toEqual({
      model: 'qwen3',
      role: 'assistant',
      content: { type: 'text', text: 'Order 2 is late.' },
      stopReason: 'endTurn',
    });
    // Counted, its tokens with the turns' (whose streams here report none).
    const metrics = await scrape();
    expect(metrics).toMatch(/^agent_engine_mcp_samplings_total\{outcome="answered"\} 1$/m);
    expect(metrics).toMatch(/^agent_engine_llm_tokens_total\{type="prompt"\} 31$/m);
    expect(metrics).toMatch(/^agent_engine_llm_tokens_total\{type="completion"\} 6$/m);
  });

  it("asks the session's own model (LLM_MODELS) for its call's completion", async () => {
    client.ws.send({ type: 'session.update', model: 'qwen3-legal' });
    await client.ws.waitFor((m) => m.type === 'session.updated');
    const reply = {
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Late.' }, finish_reason: 'stop' },
      ],
    };
    await turn('summarize_orders', { kind: 'json', body: reply });
    expect(rig.llm.requests.map((r) => r.body.model)).toEqual([
      'qwen3-legal',
      'qwen3-legal',
      'qwen3-legal',
    ]);
    expect(JSON.parse(toolRead(rig.llm, 2))).toMatchObject({ model: 'qwen3-legal' });
  });

  it('tells the server a completion cut at its length, and why the model failed', async () => {
    const cut = {
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Order 1' }, finish_reason: 'length' },
      ],
    };
    await turn('summarize_orders', { kind: 'json', body: cut });
    expect(JSON.parse(toolRead(rig.llm, 2))).toMatchObject({
      content: { text: 'Order 1' },
      stopReason: 'maxTokens',
    });
    await turn('summarize_orders', {
      kind: 'json',
      status: 400,
      body: { error: { message: 'prompt too long' } },
    });
    expect(toolRead(rig.llm, 2)).toMatch(
      /^failed: MCP error -32603: the engine's model failed: .*prompt too long/,
    );
    expect(await scrape()).toMatch(/^agent_engine_mcp_samplings_total\{outcome="failed"\} 1$/m);
  });

  // After those that read max_tokens: the engine keeps what it learned of the server.
  it("sends max_completion_tokens to a server that refuses max_tokens (OpenAI's reasoning models)", async () => {
    const reply = {
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Late.' }, finish_reason: 'stop' },
      ],
    };
    await turn('summarize_orders', OPENAI_NO_MAX_TOKENS, { kind: 'json', body: reply });
    const retried = rig.llm.requests[2]!.body;
    expect(retried.max_completion_tokens).toBe(64);
    expect(retried.max_tokens).toBeUndefined();
    expect(JSON.parse(toolRead(rig.llm, 3))).toMatchObject({ content: { text: 'Late.' } });
  });

  it('refuses what is not text, asking the model nothing', async () => {
    await turn('describe_photo');
    expect(rig.llm.requests).toHaveLength(2);
    expect(toolRead(rig.llm)).toBe(
      "failed: MCP error -32602: image content: the engine's model is given text only",
    );
    expect(await scrape()).toMatch(/^agent_engine_mcp_samplings_total\{outcome="refused"\} 1$/m);
  });

  it('is not offered to the server of a tool that does not allow it', async () => {
    await turn('summarize_unsampled');
    expect(rig.llm.requests).toHaveLength(2);
    expect(toolRead(rig.llm)).toBe('failed: MCP error -32601: Method not found');
  });

  // Last: its eight completions wait (the fake LLM never answers) until the engine stops.
  it('runs at most 8 completions for MCP servers at once, refusing one more', async () => {
    const hanging = Array.from({ length: 8 }, () => ({ kind: 'hang' }) as const);
    await turn('flood', ...hanging);
    expect(rig.llm.requests.filter((r) => r.body.stream === false)).toHaveLength(8);
    expect(toolRead(rig.llm, 9)).toBe(
      'failed: MCP error -32603: the engine runs at most 8 completions for MCP servers at once; ask again once one has ended',
    );
  });
});
