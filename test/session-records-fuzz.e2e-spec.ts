import { createClient } from '@redis/client';
import fc from 'fast-check';
import { keyOf } from '../src/orchestrator/session-keeper.service.js';
import { chaosOptions, expectPlainErrors, historyProblems } from './support/chaos-checks.js';
import { sseText } from './support/fake-llm.js';
import { startRedis, type RedisRun } from './support/redis-server.js';
import { useEngineRig } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';

const anything = fc.jsonValue({ maxDepth: 2 });
/** What the field holds (`right`) but once in 40, when it is any JSON. */
const mostly = <T>(right: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 39, arbitrary: right }, anything as fc.Arbitrary<unknown>);

const text = fc.oneof(fc.constantFrom('hello', '', 'half \ud800'), fc.string({ maxLength: 12 }));
/** A history's messages as the engine saves them, or wrong. */
const message = fc.oneof(
  { weight: 6, arbitrary: fc.record({ role: fc.constant('user'), content: mostly(text) }) },
  fc.record({ role: fc.constant('assistant'), content: mostly(fc.option(text, { nil: null })) }),
  fc.record({
    role: fc.constant('assistant'),
    content: fc.constant(null),
    tool_calls: mostly(
      fc.array(
        fc.record({
          id: mostly(fc.constantFrom('call_1', 'call_2')),
          type: fc.constant('function'),
          function: mostly(
            fc.record({
              name: mostly(fc.constant('get_weather')),
              arguments: mostly(fc.constant('{"city":"Rome"}')),
            }),
          ),
        }),
        { maxLength: 2 },
      ),
    ),
  }),
  fc.record({
    role: fc.constant('tool'),
    tool_call_id: mostly(fc.constantFrom('call_1', 'call_2')),
    content: mostly(text),
  }),
  fc.record({
    role: mostly(fc.constantFrom('system', 'developer', 'function')),
    content: mostly(text),
  }),
  // A message of no known shape.
  anything,
);
/** Settings as saved, each right or not (but the timers that end a session: see session-time-limit). */
const settings = fc.record(
  {
    modality: mostly(fc.constantFrom('text', 'voice')),
    tts: mostly(fc.boolean()),
    voice: mostly(text),
    language: mostly(fc.constantFrom('en', 'es', 'pt-BR')),
    timezone: mostly(fc.constantFrom('UTC', 'Europe/Rome')),
    audio: mostly(fc.constantFrom('json', 'binary')),
    vad_silence_ms: mostly(fc.integer({ min: 0, max: 3000 })),
    vad_unfinished_wait_ms: mostly(fc.integer({ min: 0, max: 5000 })),
    channel: mostly(fc.constantFrom('websocket', 'twilio')),
    input_audio_format: mostly(fc.constantFrom('pcm16', 'g711_ulaw')),
    output_audio_format: mostly(fc.constantFrom('pcm16', 'g711_alaw')),
    instructions: mostly(text),
    model: mostly(fc.option(text, { nil: null })),
    tools: mostly(fc.option(fc.array(text, { maxLength: 2 }), { nil: null })),
    client_tools: mostly(fc.constant([])),
    variables: mostly(fc.dictionary(fc.string({ maxLength: 4 }), text, { maxKeys: 2 })),
  },
  { requiredKeys: [] },
);
/** Saved records: the engine's own shape, each field right or not (another version, damage). */
const record = fc.record(
  {
    v: mostly(fc.constant(1)),
    id: mostly(fc.uuid()),
    // When the conversation began: a moment of the last minutes (one long ago ends it at once).
    started: mostly(fc.integer({ min: 0, max: 300_000 }).map((ago) => Date.now() - ago)),
    history: mostly(fc.array(message, { maxLength: 6 })),
    settings: mostly(settings),
    state: mostly(fc.dictionary(fc.string({ maxLength: 4 }), anything, { maxKeys: 2 })),
    usage: mostly(
      fc.record({
        prompt_tokens: mostly(fc.nat()),
        completion_tokens: mostly(fc.nat()),
        total_tokens: mostly(fc.nat()),
      }),
    ),
    machine: mostly(fc.record({ voicemail: text })),
    placed: mostly(fc.constant(true)),
    agent: mostly(
      fc.record({
        via: fc.constant('transfer_to_sales'),
        name: fc.constant('Sales'),
        instructions: text,
      }),
    ),
    summary: mostly(text),
    turnsDropped: mostly(fc.nat()),
    toolCalls: mostly(fc.dictionary(fc.constantFrom('get_weather', 'x'), mostly(fc.nat()))),
  },
  { requiredKeys: ['v', 'id', 'history', 'settings', 'state'] },
);

/**
 * Saved sessions of any shape in Redis (SESSION_STORE_URL), as another version of the engine or
 * damage may leave them: a client resuming one is answered with a session, resumed or afresh,
 * its next turn answered with a request the LLM server would take, never an error inside.
 */
describe('resuming saved sessions of any shape', () => {
  let redis: RedisRun;
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    redis = await startRedis();
    client = createClient({ url: redis.url });
    await client.connect();
  });
  const rig = useEngineRig(() => ({ LLM_MODEL: 'm', SESSION_STORE_URL: redis.url }));
  // After the engine's own (hooks after run in the order declared): its last saves reach Redis.
  afterAll(async () => {
    await client?.close();
    await redis?.stop();
  });

  it('resume or start afresh, and answer the next turn', async () => {
    const sound = {
      v: 1,
      id: '0b7c8e52-1f0a-4c39-9a0e-6f1d2b3c4d5e',
      started: Date.now(),
      history: [{ role: 'user', content: 'hello' }],
      settings: {},
      state: {},
    };
    const outcomes = new Set<boolean>();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(record, async (saved) => {
        const token = `token-${++n}-${'x'.repeat(20)}`;
        await client.hSet(`agent-engine:session:${keyOf(token)}`, {
          owner: 'other',
          data: JSON.stringify(saved),
        });
        rig.llm.reset();
        rig.llm.fallback = () => sseText(['Fine.']);
        const ws = await WsClient.connect(
          `${rig.engine.wsUrl}?resume=${encodeURIComponent(token)}`,
        );
        try {
          const session = await ws.waitFor((m) => m.type === 'session');
          outcomes.add(session.resumed === true);
          // Resumed, it is the saved conversation; afresh, a new one.
          if (session.resumed === true) expect(session.session_id).toBe(saved.id);
          else expect(session.session_id).not.toBe(saved.id);
          ws.send({ type: 'session.update', modality: 'text' });
          const turn = await ws.turn('hi', 10_000);
          expect(turn.at(-1)).toMatchObject({ type: 'assistant_end' });
          expect(ws.messages.filter((m) => m.type === 'error' && m.code === 'internal')).toEqual(
            [],
          );
          expectPlainErrors(ws.messages);
          for (const request of rig.llm.requests) expect(historyProblems(request.body)).toEqual([]);
        } finally {
          ws.close();
          await ws.closed;
        }
      }),
      {
        ...chaosOptions(Number(process.env.CHAOS_RUNS ?? 30)),
        // Each outcome at least once, however few runs the time limit lets through: the engine's
        // own record, and one of another version.
        examples: [[sound], [{ ...sound, v: 2 }]],
      },
    );
    expect([...outcomes].sort()).toEqual([false, true]);
  }, 240_000);
});
