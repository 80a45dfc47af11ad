import { Logger } from '@nestjs/common';
import { sseText } from './support/fake-llm.js';
import { useTurnHarness, xmlCall } from './support/turn-harness.js';

/** LLM_TOOL_MAX_ITERATIONS (2 in the harness): a model that keeps calling tools is stopped. */
describe('a turn whose model keeps calling tools', () => {
  const h = useTurnHarness();

  it('stops after LLM_TOOL_MAX_ITERATIONS tool rounds and asks once more with tool_choice "none"', async () => {
    const call = () => sseText([xmlCall('get_weather', { city: 'Loop' })]);
    h.llm.enqueue(
      call(),
      call(),
      sseText([`${xmlCall('get_weather', { city: 'Ignored' })}Enough.`]),
    );
    const msgs = await h.ws.turn('loop forever');
    expect(h.llm.requests.map((r) => r.body.tool_choice)).toEqual(['auto', 'auto', 'none']);
    expect(msgs.filter((m) => m.type === 'tool_call')).toHaveLength(2);
    expect(h.tools.requests).toHaveLength(2);
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Enough.' });
  });

  it('ends with no answer, saying so in the log, when the last request still gets only a call', async () => {
    const warnings = jest.spyOn(Logger.prototype, 'warn');
    try {
      const call = () => sseText([xmlCall('get_weather', { city: 'Loop' })]);
      h.llm.enqueue(call(), call(), call());
      const msgs = await h.ws.turn('loop forever');
      expect(h.tools.requests).toHaveLength(2);
      expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: '' });
      expect(warnings.mock.calls.map(([m]) => String(m))).toContainEqual(
        expect.stringMatching(
          /^no answer after LLM_TOOL_MAX_ITERATIONS=2 tool rounds: the model asked for more tools \(session_id=/,
        ),
      );
    } finally {
      warnings.mockRestore();
    }
  });
});
