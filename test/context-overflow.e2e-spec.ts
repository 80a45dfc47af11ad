import { sseStructuredCalls, sseText, type Script } from './support/fake-llm.js';
import { useEngineRig } from './support/turn-harness.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/** vLLM's refusal of a prompt longer than its max_model_len. */
const VLLM_OVERFLOW: Script = {
  kind: 'status',
  status: 400,
  body: JSON.stringify({
    object: 'error',
    message:
      "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
    type: 'BadRequestError',
    param: null,
    code: 400,
  }),
};

/** SGLang's: an error written into an HTTP 200 stream. */
const SGLANG_OVERFLOW: Script = {
  kind: 'sse',
  pieces: [
    'data: {"error": {"object": "error", "message": "Requested token count exceeds the model\'s maximum context length of 8192 tokens.", "type": "BadRequestError", "param": null, "code": 400}}\n\n',
    'data: [DONE]\n\n',
  ],
};

/**
 * A conversation that outgrows the model's context is not stuck: the turn that hits the limit
 * drops older turns (whole, half of them at a time) and is answered, and so are the next ones.
 */
describe('a conversation longer than the model context', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([weatherTool(base)]),
  }));
  /** The fake model's context, in messages; a longer request gets `refusal`. */
  let context = Infinity;
  let refusal: Script = VLLM_OVERFLOW;
  beforeEach(() => {
    context = Infinity;
    refusal = VLLM_OVERFLOW;
    rig.llm.fallback = (body) =>
      body.messages.length > context ? refusal : sseText([`Answer ${body.messages.length}.`]);
  });
  const sizes = () => rig.llm.requests.map((r) => r.body.messages.length as number);

  /** A session with `turns` answered turns (2 × turns messages, and the system prompt). */
  async function conversation(turns: number): Promise<WsClient> {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    for (let i = 1; i <= turns; i++) await ws.turn(`question ${i}`);
    rig.llm.requests.length = 0;
    return ws;
  }

  it.each([
    ['vLLM (HTTP 400)', VLLM_OVERFLOW],
    ['SGLang (error in the stream)', SGLANG_OVERFLOW],
  ])('drops the older turns and answers: %s', async (_server, script) => {
    const ws = await conversation(8);
    context = 12;
    refusal = script;
    const turn = await ws.turn('question 9');
    expect(turn.at(-1)).toEqual({ type: 'assistant_end', text: 'Answer 10.' });
    expect(turn.some((m) => m.type === 'error')).toBe(false);
    // System, 8 turns and the question refused; then the older half of the 8 turns dropped.
    expect(sizes()).toEqual([18, 10]);
    const kept = rig.llm.requests[1]!.body.messages;
    expect(kept[0].role).toBe('system');
    expect(kept.slice(1, 3)).toEqual([
      { role: 'user', content: 'question 5' },
      { role: 'assistant', content: 'Answer 10.' }, // what the model said to question 5
    ]);
    expect(kept.at(-1)).toEqual({ role: 'user', content: 'question 9' });
    // The session keeps the shorter history: the next turn is answered at the first request.
    await ws.turn('question 10');
    expect(sizes().slice(2)).toEqual([12]);
    const scrape = await (await fetch(`${rig.engine.httpUrl}/metrics`)).text();
    expect(scrape).toMatch(/^agent_engine_history_shortened_total [1-9]\d*$/m);
    ws.close();
  });

  it("keeps the turn's own tool round when a later round of it no longer fits", async () => {
    const ws = await conversation(4);
    context = 11;
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } }]),
    );
    const turn = await ws.turn('weather in Oslo?');
    expect(turn.at(-1)).toMatchObject({
      type: 'assistant_end',
      text: expect.stringMatching(/^Answer/),
    });
    // 10 messages fit; 12 (with the call and its result) do not: two older turns dropped.
    expect(sizes()).toEqual([10, 12, 8]);
    expect(rig.llm.requests[2]!.body.messages.slice(-3)).toEqual([
      { role: 'user', content: 'weather in Oslo?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_w',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_w', content: 'ok' },
    ]);
    ws.close();
  });

  it('does not ask again once the round has streamed text: the user would hear it twice', async () => {
    const ws = await conversation(4);
    const [opening, ...rest] = sseText(['Let me see. ']).pieces;
    rig.llm.enqueue({ kind: 'sse', pieces: [opening!, rest[0]!, ...SGLANG_OVERFLOW.pieces] });
    const turn = await ws.turn('question 5');
    expect(turn.filter((m) => m.type === 'assistant_delta')).toEqual([
      { type: 'assistant_delta', text: 'Let me see. ' },
    ]);
    expect(turn.find((m) => m.type === 'error')).toMatchObject({ code: 'llm_failed' });
    expect(turn.at(-1)).toEqual({ type: 'assistant_end', text: 'Let me see. ' });
    expect(sizes()).toEqual([10]);
    // Nothing was dropped: the next turn carries the whole conversation.
    await ws.turn('question 6');
    expect(sizes()[1]).toBe(12); // system, 5 turns (the 5th: the text sent), question 6
    ws.close();
  });

  it("fails the turn with the server's message when the turn alone is too long, after a few tries", async () => {
    const ws = await conversation(16);
    context = 1;
    const turn = await ws.turn('question 17');
    expect(turn.find((m) => m.type === 'error')).toEqual({
      type: 'error',
      code: 'llm_failed',
      message: expect.stringContaining("This model's maximum context length is 8192 tokens"),
    });
    expect(turn.at(-1)).toEqual({ type: 'assistant_end', text: '' });
    // Halving 16 older turns: 16, 8, 4, 2, 1, then the turn alone (system and question).
    expect(sizes()).toEqual([34, 18, 10, 6, 4, 2]);
    // The session goes on once the model can take it.
    context = Infinity;
    expect((await ws.turn('question 18')).at(-1)).toMatchObject({ type: 'assistant_end' });
    ws.close();
  });
});
