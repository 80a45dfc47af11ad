import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';

/**
 * LLM_MAX_HISTORY_MESSAGES: a long conversation sends the model its latest turns only, whole — a
 * tool call is never sent without its result, nor a result without its call.
 */
describe('a conversation longer than LLM_MAX_HISTORY_MESSAGES', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_MAX_HISTORY_MESSAGES: '5',
    LLM_TOOLS_FILE: writeToolsFile([weatherTool(base)]),
  }));
  const client = useClientPerTest(rig);
  const sent = (r: number) =>
    rig.llm.requests[r]!.body.messages.map((m: any) =>
      m.role === 'tool' ? 'tool' : m.tool_calls ? 'call' : `${m.role}: ${m.content}`,
    );

  it('drops the oldest turns whole, between the rounds of a turn too', async () => {
    const call = (id: string, city: string) =>
      sseStructuredCalls([{ id, name: 'get_weather', arguments: { city } }]);
    rig.llm.enqueue(call('call_1', 'Oslo'), sseText(['Sunny.']));
    rig.llm.enqueue(call('call_2', 'Lima'), sseText(['Rain.']), sseText(['You are welcome.']));
    await client.ws.turn('weather in Oslo?');
    await client.ws.turn('and in Lima?');
    await client.ws.turn('thanks');
    const system = sent(0)[0];
    const oslo = [system, 'user: weather in Oslo?', 'call', 'tool'];
    const lima = [system, 'user: and in Lima?', 'call', 'tool'];
    expect(sent(1)).toEqual(oslo);
    // Five messages besides the system prompt: at the bound, nothing dropped.
    expect(sent(2)).toEqual([...oslo, 'assistant: Sunny.', 'user: and in Lima?']);
    // Seven would be over it: the first turn goes, its call and result together.
    expect(sent(3)).toEqual(lima);
    expect(sent(4)).toEqual([...lima, 'assistant: Rain.', 'user: thanks']);
  });
});
