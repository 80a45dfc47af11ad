import { sseChunk, sseText, type Script } from './support/fake-llm.js';
import { smsTool, writeToolsFile } from './support/tools-file.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';

/** A model's message whose output reached its token limit while it wrote a call's arguments. */
const cutOff = (args: string): Script => ({
  kind: 'sse',
  pieces: [
    sseChunk({ role: 'assistant', content: null }),
    sseChunk({
      tool_calls: [
        { index: 0, id: 'call_1', type: 'function', function: { name: 'send_sms', arguments: '' } },
      ],
    }),
    sseChunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }),
    sseChunk({}, 'length'),
    'data: [DONE]\n\n',
  ],
});

/**
 * A call the model was still writing when its output reached the token limit (`max_tokens`):
 * its arguments, mended into JSON, would have sent the text cut mid-word.
 */
describe('a call cut off at the token limit', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([smsTool(base)]),
  }));
  const client = useClientPerTest(rig);

  it('is not run: the model reads why, and can make it again', async () => {
    rig.llm.enqueue(
      cutOff('{"to": "+15550001", "text": "Your table for four is confir'),
      sseText(['Sorry, let me try that again.']),
    );
    const events = await client.ws.turn('Text me the booking.');
    expect(rig.tools.requests).toEqual([]);
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({
      name: 'send_sms',
      ok: false,
    });
    expect(rig.llm.requests[1]!.body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content:
        'Error: tool request failed: not run: your output reached its token limit before this call was complete (its arguments were cut off); make the call again, with shorter arguments',
    });
  });

  it('is not run when written in the text, a Hermes block or a Mistral call', async () => {
    const args = '{"to": "+15550001", "text": "Your table for four is confir';
    for (const text of [
      `<tool_call>\n{"name": "send_sms", "arguments": ${args}`,
      `[TOOL_CALLS]send_sms[ARGS]${args}`,
    ]) {
      rig.llm.reset();
      rig.llm.enqueue(sseText([text], 'length'), sseText(['Sorry, again.']));
      await client.ws.turn('Text me the booking.');
      expect(rig.tools.requests).toEqual([]);
      expect(rig.llm.requests[1]!.body.messages.at(-1).content).toMatch(
        /^Error: tool request failed: not run: your output reached its token limit/,
      );
    }
  });
});
