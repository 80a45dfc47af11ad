import { Logger } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { replay, sseText } from './support/fake-llm.js';
import { writeToolsFile } from './support/tools-file.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';

/** vLLM serving Qwen3 with a reasoning parser: it thinks, then calls `add_todo`. */
const THOUGHT = 'vllm-qwen3-reasoning-content-tool-call-continuous-usage.txt';
const REASONING = readFileSync(`test/fixtures/sse/${THOUGHT}`, 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('data: {'))
  .map((line) => JSON.parse(line.slice(6)).choices?.[0]?.delta?.reasoning_content ?? '')
  .join('');
const ADMIN = { headers: { Authorization: 'Bearer admin-key' } };
const tools = (base: string) =>
  writeToolsFile([
    {
      name: 'add_todo',
      description: 'Add a to-do',
      parameters: { type: 'object', properties: { task: { type: 'string' } }, required: ['task'] },
      url: `${base}/todos`,
      method: 'POST',
    },
  ]);
/** The assistant messages with calls that a request sends. */
const withCalls = (body: Record<string, any>) =>
  body.messages.filter((m: any) => m.role === 'assistant' && m.tool_calls);

/**
 * A thinking model's reasoning before its calls goes back with them for the turn's next rounds
 * (LLM_KEEP_REASONING): Qwen3's, Kimi's, DeepSeek's and MiniMax's templates show it to the model
 * after the last user message, and the model goes on from its plan instead of thinking anew.
 */
describe('LLM_KEEP_REASONING', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    ADMIN_API_KEY: 'admin-key',
    LLM_TOOLS_FILE: tools(base),
  }));
  const client = useClientPerTest(rig);

  it("sends a round's reasoning back with its calls until the turn ends, under both names servers read", async () => {
    expect(REASONING.length).toBeGreaterThan(100);
    rig.llm.enqueue(replay(THOUGHT), sseText(['Added.']));
    const turn = await client.ws.turn('Remind me to go to the store');
    expect(turn.find((m) => m.type === 'tool_call')).toMatchObject({ name: 'add_todo' });
    const [sent] = withCalls(rig.llm.requests[1]!.body);
    expect(sent).toMatchObject({ reasoning_content: REASONING, reasoning: REASONING });
    // Never spoken, and gone from the conversation once the turn is over.
    expect(turn.at(-1)).toMatchObject({ type: 'assistant_end', text: 'Added.' });
    rig.llm.enqueue(sseText(['You are welcome.']));
    await client.ws.turn('Thanks');
    const [later] = withCalls(rig.llm.requests[2]!.body);
    expect(later.tool_calls[0].function.name).toBe('add_todo');
    expect(later).not.toHaveProperty('reasoning_content');
    expect(later).not.toHaveProperty('reasoning');
    const id = client.ws.messages[0]!.session_id as string;
    const read = await fetch(`${rig.engine.httpUrl}/api/sessions/${id}`, ADMIN);
    expect(JSON.stringify(await read.json())).not.toContain('reasoning');
  });

  it('sends none again to a server that refuses it, and says so once', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => {});
    try {
      const refusal = {
        kind: 'status',
        status: 400,
        body: JSON.stringify({
          error: {
            message:
              "Additional properties are not allowed ('reasoning', 'reasoning_content' were unexpected) - 'messages.2'",
            type: 'invalid_request_error',
          },
        }),
      } as const;
      rig.llm.enqueue(replay(THOUGHT), refusal, sseText(['Added.']));
      const turn = await client.ws.turn('Remind me to go to the store');
      expect(turn.at(-1)).toMatchObject({ type: 'assistant_end', text: 'Added.' });
      const [, refused, again] = rig.llm.requests.map((r) => withCalls(r.body)[0]);
      expect(refused).toHaveProperty('reasoning_content', REASONING);
      expect(again).not.toHaveProperty('reasoning_content');
      expect(again).not.toHaveProperty('reasoning');
      expect(warn.mock.calls.map(([line]) => String(line))).toContainEqual(
        expect.stringMatching(/refuses the model's reasoning sent back with its calls/),
      );
    } finally {
      warn.mockRestore();
    }
  });
});

describe('LLM_KEEP_REASONING=off', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_KEEP_REASONING: 'off',
    LLM_TOOLS_FILE: tools(base),
  }));
  const client = useClientPerTest(rig);

  it('sends the calls without their reasoning', async () => {
    rig.llm.enqueue(replay(THOUGHT), sseText(['Added.']));
    await client.ws.turn('Remind me to go to the store');
    const [sent] = withCalls(rig.llm.requests[1]!.body);
    expect(sent.tool_calls).toHaveLength(1);
    expect(sent).not.toHaveProperty('reasoning_content');
    expect(sent).not.toHaveProperty('reasoning');
  });
});
