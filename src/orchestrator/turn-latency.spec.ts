import { MAX_TURNS_MEASURED, TurnLatency } from './turn-latency.js';

describe('TurnLatency', () => {
  it('sums each measure up over the turns that had it: median, 90th percentile, longest', () => {
    const latency = new TurnLatency();
    expect(latency.summary()).toBeUndefined();
    for (const ms of [400, 100, 300, 200, 1000, 500, 600, 700, 800, 900])
      latency.add({ llm_ms: 50, llm_requests: 1, first_text_ms: ms, total_ms: ms + 10 });
    latency.add({ llm_ms: 0, llm_requests: 2, tools_ms: 250, total_ms: 900 });
    latency.add({ tts_first_ms: 90, first_audio_ms: 650, total_ms: 2000 });
    expect(latency.summary()).toEqual({
      first_text_ms: { p50: 500, p90: 900, max: 1000, turns: 10 },
      first_audio_ms: { p50: 650, p90: 650, max: 650, turns: 1 },
      tools_ms: { p50: 250, p90: 250, max: 250, turns: 1 },
      tts_first_ms: { p50: 90, p90: 90, max: 90, turns: 1 },
    });
  });

  it('keeps at most MAX_TURNS_MEASURED turns of a measure: the first', () => {
    const latency = new TurnLatency();
    for (let i = 0; i < MAX_TURNS_MEASURED + 50; i++)
      latency.add({
        llm_ms: 1,
        llm_requests: 1,
        first_text_ms: i < MAX_TURNS_MEASURED ? 10 : 99_999,
        total_ms: 1,
      });
    expect(latency.summary()!.first_text_ms).toEqual({
      p50: 10,
      p90: 10,
      max: 10,
      turns: MAX_TURNS_MEASURED,
    });
  });
});
