import { judgeTurn, matches, type TurnObservation } from './judge.js';

const turn = (over: Partial<TurnObservation> = {}): TurnObservation => ({
  text: 'It is sunny in Rome.',
  calls: [{ name: 'get_weather', arguments: { city: 'Rome', units: 'metric' } }],
  modelErrors: [],
  firstTextMs: 420,
  totalMs: 900,
  ...over,
});

describe('matches', () => {
  it('takes the given fields of an object, equal values, a /pattern/ for a string, arrays item by item', () => {
    expect(matches({ city: 'Rome' }, { city: 'Rome', units: 'metric' })).toBe(true);
    expect(matches({ city: 'rome' }, { city: 'Rome' })).toBe(false);
    expect(matches({ city: '/^rome$/i' }, { city: 'Rome' })).toBe(true);
    expect(matches({ party: 4 }, { party: '4' })).toBe(false);
    expect(matches({ when: { day: 'mon' } }, { when: { day: 'mon', hour: 9 } })).toBe(true);
    expect(matches({ tags: ['a', 'b'] }, { tags: ['a', 'b', 'c'] })).toBe(false);
    expect(matches({ tags: ['a', { x: 1 }] }, { tags: ['a', { x: 1, y: 2 }] })).toBe(true);
    expect(matches({ city: 'Rome' }, {})).toBe(false);
    expect(matches({ note: null }, { note: null })).toBe(true);
    // Not a pattern that compiles: taken as the text it is.
    expect(matches('/(/', '/(/')).toBe(true);
  });
});

describe('judgeTurn', () => {
  it('passes a turn that shows all its expectation asks', () => {
    expect(
      judgeTurn(turn(), {
        tool_calls: [{ name: 'get_weather', arguments: { city: 'Rome' } }],
        text: 'sunny',
        text_not: 'sorry',
        max_first_text_ms: 500,
        max_total_ms: 1000,
      }),
    ).toEqual([]);
    expect(judgeTurn(turn())).toEqual([]);
  });

  it('says which expected call is missing, in order, and which calls were made', () => {
    const calls = [
      { name: 'find_table', arguments: { party: 4 } },
      { name: 'book_table', arguments: { id: 't1' } },
    ];
    expect(
      judgeTurn(turn({ calls }), {
        tool_calls: [{ name: 'book_table' }, { name: 'find_table' }],
      }),
    ).toEqual([
      `expected a call find_table {} (in order); the turn's calls: find_table {"party":4}, book_table {"id":"t1"}`,
    ]);
    expect(judgeTurn(turn(), { tool_calls: [] })).toEqual([
      'expected no tool call; the turn called get_weather {"city":"Rome","units":"metric"}',
    ]);
    expect(judgeTurn(turn({ calls: [] }), { tool_calls: [{ name: 'get_weather' }] })).toEqual([
      "expected a call get_weather {} (in order); the turn's calls: none",
    ]);
  });

  it("tells the answer's text, an error, and times over their limits", () => {
    expect(judgeTurn(turn(), { text: 'rain', text_not: 'SUNNY' })).toEqual([
      'the answer does not match /rain/i: "It is sunny in Rome."',
      'the answer matches /SUNNY/i, which it must not: "It is sunny in Rome."',
    ]);
    const failed = turn({ error: { code: 'llm_failed', message: 'HTTP 500' } });
    expect(judgeTurn(failed)).toEqual(['an error: llm_failed: HTTP 500']);
    expect(judgeTurn(failed, { error: 'llm_failed' })).toEqual([]);
    expect(judgeTurn(turn(), { error: 'llm_failed' })).toEqual([
      'expected the error llm_failed; the turn had none',
    ]);
    expect(judgeTurn(turn(), { max_first_text_ms: 400, max_total_ms: 800 })).toEqual([
      'the first text came after 420 ms, over max_first_text_ms 400',
      'the turn took 900 ms, over max_total_ms 800',
    ]);
    expect(judgeTurn(turn({ firstTextMs: undefined }), { max_first_text_ms: 400 })).toEqual([
      'no text came',
    ]);
    expect(
      judgeTurn(
        turn({ closed: 'the engine closed the connection (4002 closed by an administrator)' }),
      ),
    ).toEqual([
      "the engine closed the connection (4002 closed by an administrator) before the turn's end",
    ]);
    expect(judgeTurn(turn({ timedOut: true, totalMs: 60_000.4 }), { text: 'x' })).toEqual([
      'no assistant_end within 60000 ms',
    ]);
  });

  it('tells what the engine heard of speech, and its first audio over its limit', () => {
    const spoken = turn({ transcript: 'What is the weather in Rome?', firstAudioMs: 700 });
    expect(judgeTurn(spoken, { transcript: 'weather in rome', max_first_audio_ms: 800 })).toEqual(
      [],
    );
    expect(judgeTurn(spoken, { transcript: 'paris', max_first_audio_ms: 600 })).toEqual([
      'what the engine heard does not match /paris/i: "What is the weather in Rome?"',
      'the first audio came after 700 ms, over max_first_audio_ms 600',
    ]);
    expect(judgeTurn(turn(), { transcript: 'rome', max_first_audio_ms: 600 })).toEqual([
      'the engine heard nothing, where /rome/i was to be heard',
      'no audio came',
    ]);
    const unheard = turn({
      unheard: true,
      text: '',
      calls: [],
      error: { code: 'no_speech', message: 'no speech' },
    });
    expect(judgeTurn(unheard, { error: 'no_speech' })).toEqual([]);
    expect(judgeTurn(unheard)).toEqual(['an error: no_speech: no speech']);
    expect(judgeTurn(turn({ timedOut: true, awaited: 'audio_end', totalMs: 5000 }))).toEqual([
      'no audio_end within 5000 ms',
    ]);
  });

  it('tells a turn that asked the model more often than it may', () => {
    const rounds = turn({ timings: { llm_requests: 3, first_text_ms: 800 } });
    expect(judgeTurn(rounds, { max_llm_requests: 3 })).toEqual([]);
    expect(judgeTurn(rounds, { max_llm_requests: 2 })).toEqual([
      'the turn asked the model 3 times, over max_llm_requests 2',
    ]);
  });
});
