import { sseText } from './support/fake-llm.js';
import { useLlmPair } from './support/llm-pair.js';
import { samples } from './support/prometheus.js';

/**
 * LLM_FALLBACK_AFTER_MS: a request the primary LLM server has not begun to answer by then (a
 * queue at an overloaded vLLM) is sent to LLM_FALLBACK_BASE_URL as well; the first to answer
 * gives the answer, the other's request is cancelled. A caller waits no longer than that for a
 * slow server.
 */
describe('LLM_FALLBACK_AFTER_MS: the fallback asked as well when the primary is slow to begin', () => {
  const pair = useLlmPair({
    LLM_MODEL: 'big',
    LLM_FALLBACK_MODEL: 'small',
    LLM_FALLBACK_AFTER_MS: '300',
  });
  const { primary, fallback, turn } = pair;
  const hedges = async () => samples(await (await fetch(`${pair.engine.httpUrl}/metrics`)).text());

  it("answers from the fallback when the primary's first token is late, cancelling the primary", async () => {
    // The primary's first words would come 1.5 s after its request.
    primary.enqueue({ ...sseText(['Slow ', 'answer.']), delayMs: 1500 });
    fallback.enqueue(sseText(['Quick ', 'answer.']));
    const started = performance.now();
    const msgs = await turn('hi');
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Quick answer.' });
    expect(performance.now() - started).toBeLessThan(1500);
    expect(primary.requests).toHaveLength(1);
    await primary.requests[0]!.aborted;
    expect(fallback.requests).toHaveLength(1);
    expect(fallback.requests[0]!.body).toMatchObject({ model: 'small', stream: true });
    expect((await hedges()).get('agent_engine_llm_hedges_total{answered="fallback"}')).toBe(1);
  });

  it('asks only the primary when it begins in time, however long its answer then takes', async () => {
    primary.enqueue({ ...sseText(['One, ', 'two, ', 'three, ', 'four.', ' Five.']), delayMs: 50 });
    const msgs = await turn('count');
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'One, two, three, four. Five.' });
    expect(fallback.requests).toHaveLength(0);
    expect(primary.requests[0]!.wasAborted).toBe(false);
  });

  it("keeps the primary's answer when it begins first after all, cancelling the fallback", async () => {
    // Both late: the primary at 400 ms, the fallback (asked at 300 ms) 600 ms after that.
    primary.enqueue({ ...sseText(['From ', 'the primary.']), delayMs: 400 });
    fallback.enqueue({ ...sseText(['From ', 'the fallback.']), delayMs: 600 });
    const msgs = await turn('hi');
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'From the primary.' });
    await fallback.requests[0]!.aborted;
    expect((await hedges()).get('agent_engine_llm_hedges_total{answered="primary"}')).toBe(1);
  });
});
