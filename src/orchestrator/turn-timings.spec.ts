import { TurnTimings } from './turn-timings.js';

/** A clock the test moves by hand. */
function clock(start = 1000) {
  let t = start;
  return { now: () => t, at: (ms: number) => (t = start + ms) };
}

describe('TurnTimings', () => {
  it("times a turn of two rounds from the end of the user's turn: LLM, tools, first text", () => {
    const c = clock();
    const timings = new TurnTimings(c.now(), undefined, c.now);
    c.at(10);
    const first = timings.request();
    c.at(130);
    first.seen();
    c.at(150);
    first.seen();
    c.at(200);
    first.ended();
    const calls = c.now();
    c.at(500);
    timings.toolsWaited(calls);
    const second = timings.request();
    c.at(540);
    second.seen();
    timings.sent('assistant_delta');
    c.at(560);
    timings.sent('assistant_delta');
    c.at(600);
    second.ended();
    expect(timings.text()).toEqual({
      llm_first_ms: 120,
      llm_ms: 290,
      llm_requests: 2,
      llm_rounds: [
        { first_ms: 120, ms: 190 },
        { first_ms: 40, ms: 100 },
      ],
      tools_ms: 300,
      first_text_ms: 540,
      total_ms: 600,
    });
  });

  it('gives a spoken turn its transcription, and leaves out what did not happen', () => {
    const c = clock();
    const timings = new TurnTimings(c.now(), { startedAt: 1005, endedAt: 1325.4 }, c.now);
    c.at(400);
    timings.request().ended();
    expect(timings.text()).toEqual({
      stt_ms: 320,
      llm_ms: 0,
      llm_requests: 1,
      llm_rounds: [{ ms: 0 }],
      total_ms: 400,
    });
  });

  it('times the speech: the first audio sent, and the synthesis of the sentence asked for first', () => {
    const c = clock();
    const timings = new TurnTimings(c.now(), undefined, c.now);
    // Two syntheses at once: the second sentence's ends first, but the first sentence's counts.
    timings.synthesized(1300, 0.09);
    timings.synthesized(1200, 0.1804);
    timings.synthesized(1500, 0.05);
    c.at(390);
    timings.sent('audio');
    c.at(700);
    timings.sent('audio');
    c.at(1900);
    expect(timings.audio()).toEqual({ tts_first_ms: 180, first_audio_ms: 390, total_ms: 1900 });
    expect(new TurnTimings(c.now(), undefined, c.now).audio()).toEqual({ total_ms: 0 });
  });
});
