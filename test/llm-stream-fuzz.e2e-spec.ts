import fc from 'fast-check';
import { chaosOptions, expectPlainErrors } from './support/chaos-checks.js';
import { sseText } from './support/fake-llm.js';
import { useTurnHarness } from './support/turn-harness.js';

const pick = (...values: unknown[]) => fc.constantFrom(...values);

/** A delta's fields as servers write them, and as they should not (wrong types, nulls). */
const call = fc.record(
  {
    index: pick(0, 1, '0', null),
    id: pick('call_1', 'call_2', null, 5, ''),
    type: pick('function', null, 'other'),
    function: fc.record(
      {
        name: pick('get_weather', 'nope', null, ''),
        arguments: pick('{"city": ', '"Rome"}', '{"city": "Lima"}', '', null, { city: 'Oslo' }, 7),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);
const text = pick(
  'It is ',
  'sunny.',
  '<tool_call>',
  '{"name": "get_weather", "arguments": {"city": "Rome"}}',
  '</tool_call>',
  '<think>',
  '</think>',
  '',
  5,
  null,
  ['a'],
  { a: 1 },
);
const delta = fc.record(
  {
    role: pick('assistant', null, 7),
    content: text,
    reasoning_content: text,
    tool_calls: fc.oneof(fc.array(call, { maxLength: 2 }), pick(null, 'x', {})),
  },
  { requiredKeys: [] },
);
const event = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(delta, pick(null, null, 'stop', 'tool_calls', 'length', 'weird'), pick(0, 1, null))
      .map(([d, finish, index]) => ({ choices: [{ index, delta: d, finish_reason: finish }] })),
  },
  pick({ choices: [] }, { choices: null }, {}, [], 'str', 7, { error: { message: 'overloaded' } }),
  pick({ choices: [{ index: 0, delta: null }] }, { usage: { prompt_tokens: 'x' }, choices: [] }),
);
/** The pieces of a stream: events, and lines that are not (comments, junk, an early [DONE]). */
const piece = fc.oneof(
  { weight: 8, arbitrary: event.map((e) => `data: ${JSON.stringify(e)}\n\n`) },
  fc.constantFrom(
    'data: {\n\n',
    ': keep-alive\n\n',
    'event: ping\ndata: {}\n\n',
    'data: [DONE]\n\n',
    'garbage\n\n',
  ),
);

/**
 * What an OpenAI-compatible server may stream, well formed or not (wrong types, nulls, cut JSON,
 * errors mid-stream): whatever it is, the turn ends once (`assistant_end` last), with an
 * `llm_failed` error at worst, never an `internal` one, every call it ran answered once, and the
 * next turn is answered.
 */
describe('random LLM streams', () => {
  const h = useTurnHarness();

  it('end their turn once and leave the session answering', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 10 }), async (pieces) => {
        h.llm.reset();
        h.llm.fallback = () => sseText(['Fine.']);
        h.llm.enqueue({ kind: 'sse', pieces: [...pieces, 'data: [DONE]\n\n'] });
        const turn = await h.ws.turn('Weather?', 10_000);
        const ends = turn.filter((m) => m.type === 'assistant_end');
        expect(ends).toHaveLength(1);
        expect(turn.at(-1)!.type).toBe('assistant_end');
        expect(turn.filter((m) => m.type === 'error' && m.code !== 'llm_failed')).toEqual([]);
        expectPlainErrors(turn);
        // Every call announced has its result, but in a turn the LLM's stream failed after it
        // was announced: assistant_end closes it (README, tool_call).
        const calls = turn.filter((m) => m.type === 'tool_call').map((m) => m.id as string);
        const results = turn.filter((m) => m.type === 'tool_result').map((m) => m.id as string);
        const failed = turn.some((m) => m.type === 'error');
        if (failed) expect(calls).toEqual(expect.arrayContaining(results));
        else expect(results.sort()).toEqual(calls.sort());
        const next = await h.ws.turn('And now?', 10_000);
        expect(next.at(-1)).toEqual({ type: 'assistant_end', text: 'Fine.' });
      }),
      chaosOptions(Number(process.env.CHAOS_RUNS ?? 40)),
    );
  }, 180_000);
});
