import fc from 'fast-check';
import { chaosOptions, FAULT_WORDS } from './support/chaos-checks.js';
import { sseText } from './support/fake-llm.js';
import { useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { expectStillAnswering } from './support/still-answering.js';
import { WsClient } from './support/ws-client.js';

const ADMIN = { Authorization: 'Bearer admin-key', 'Content-Type': 'application/json' };

/** Values a field may be given: those its rules take, those they refuse (any JSON is added). */
const FIELDS: Record<string, unknown[]> = {
  to: ['+15550123', 'sip:desk@pbx.example.com', '5550123', ''],
  from: ['+15550199', 'clinic'],
  greeting: ['Hello, this is the clinic.', '', 'half \ud800 a character', 'x'.repeat(10_001)],
  greeting_interruptible: [true, false],
  variables: [{ appointment_id: 'A-7' }, { token: 'mine' }, { a: 1 }, [], { 'bad name': 'x' }],
  instructions: ['You call Ada about her appointment.', '', 'x'.repeat(5000)],
  language: ['en', 'es', 'xx-YY'],
  timezone: ['Europe/Madrid', 'Mars/Base'],
  voice: ['alloy', ''],
  max_secs: [600, 0, -1, 1e12, 'long'],
  agent: ['reminders', 'to_reminders', 'nobody', ''],
  voicemail: ['Please call us back.', '', ' '],
  hang_up_on_machine: [true, false],
  status_callback: ['https://crm.example.com/call-status', 'ftp://crm.example.com', 'crm'],
  text: ['The payment went through.', '', ' ', 'x'.repeat(20_001), 'half \udc00'],
  respond: [true, false],
};

/** Each endpoint's field it needs, its others, and the statuses its answers may have. */
const ENDPOINTS = {
  calls: {
    needs: 'to',
    fields: Object.keys(FIELDS).filter((k) => !['to', 'text', 'respond'].includes(k)),
    statuses: [201, 400],
  },
  notes: { needs: 'text', fields: ['respond'], statuses: [200, 400, 409] },
  agent: { needs: 'agent', fields: [], statuses: [200, 400] },
} as const;
type Endpoint = keyof typeof ENDPOINTS;

/** A value of `key`'s: one of its own (`pick` a number), or any JSON. */
const valueOf = (key: string, pick: unknown) => {
  const values = FIELDS[key] ?? [pick];
  return typeof pick === 'number' ? values[pick % values.length] : pick;
};

/** A body for `endpoint`: an object of its fields (and perhaps one of another's), or any text. */
const body = (endpoint: Endpoint) =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(
          fc.option(fc.constant(ENDPOINTS[endpoint].needs), { freq: 6, nil: undefined }),
          fc.subarray([...ENDPOINTS[endpoint].fields], {
            maxLength: Math.min(4, ENDPOINTS[endpoint].fields.length),
          }),
          fc.option(fc.constantFrom(...Object.keys(FIELDS), 'extra'), { freq: 3 }),
          // Mostly the first of a field's values, one its rules take.
          fc.array(
            fc.oneof(
              { weight: 6, arbitrary: fc.constant(0) },
              { weight: 3, arbitrary: fc.nat() },
              fc.jsonValue({ maxDepth: 2 }),
            ),
            { minLength: 16, maxLength: 16 },
          ),
        )
        .map(([needed, own, foreign, picks]) => {
          const keys = [...(needed ? [needed] : []), ...own, ...(foreign ? [foreign] : [])];
          return JSON.stringify(Object.fromEntries(keys.map((k, i) => [k, valueOf(k, picks[i])])));
        }),
    },
    fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
    fc.string({ maxLength: 40 }),
  );

const request = fc
  .constantFrom(...(Object.keys(ENDPOINTS) as Endpoint[]))
  .chain((endpoint) => fc.tuple(fc.constant(endpoint), body(endpoint)));

/**
 * Random bodies of the REST endpoints an application posts to while a conversation goes on
 * (`POST /api/calls`, `POST /api/sessions/{id}/notes` and `/agent`): whatever they hold, the
 * answer is the action done or refused with why (400, or 409 for one note too many), never a
 * failure of the engine; a call placed reaches Twilio's API with the number asked for; and the
 * session the notes and assistants went to answers its next turn.
 */
describe('random bodies of the admin endpoints', () => {
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      ADMIN_API_KEY: 'admin-key',
      TWILIO_ACCOUNT_SID: 'AC0001',
      TWILIO_AUTH_TOKEN: 'f0e1d2c3b4a5968778695a4b3c2d1e0f',
      TWILIO_API_BASE_URL: base,
      TWILIO_STREAM_URL: 'wss://voice.example.com/twilio',
      TWILIO_FROM_NUMBER: '+15550199',
      LLM_TOOLS_FILE: writeToolsFile([
        { type: 'handoff', name: 'to_reminders', agent: 'reminders', instructions: 'Reminders.' },
      ]),
    }),
    (_req, res) => {
      res.statusCode = 201;
      res.end('{"sid":"CA0009","status":"queued"}');
    },
  );

  it('are done or refused with why, never failed, and the session answers on', async () => {
    rig.llm.fallback = () => sseText(['Fine.']);
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 8 }), async (requests) => {
        const ws = await WsClient.connect(rig.engine.wsUrl);
        try {
          const id = ws.messages[0]!.session_id as string;
          for (const [endpoint, text] of requests) {
            const placed = rig.tools.requests.length;
            const path = endpoint === 'calls' ? 'calls' : `sessions/${id}/${endpoint}`;
            const reply = await fetch(`${rig.engine.httpUrl}/api/${path}`, {
              method: 'POST',
              headers: ADMIN,
              body: text,
            });
            const answer = (await reply.json()) as Record<string, unknown>;
            seen.add(`${endpoint} ${reply.status}`);
            const allowed: readonly number[] = ENDPOINTS[endpoint].statuses;
            if (!allowed.includes(reply.status))
              throw new Error(`${endpoint} ${text}: ${reply.status} ${JSON.stringify(answer)}`);
            if (reply.status >= 400) {
              expect(answer).toEqual({
                ok: false,
                statusCode: reply.status,
                message: expect.any(String),
              });
              expect(answer.message).not.toMatch(/internal|undefined|\[object/i);
              expect(answer.message).not.toMatch(FAULT_WORDS);
            }
            const calls = rig.tools.requests.slice(placed);
            if (endpoint === 'calls' && reply.status === 201) {
              expect(calls).toHaveLength(1);
              const form = new URLSearchParams(calls[0]!.body);
              expect(form.get('To')).toBe(answer.to);
              expect(form.get('To')).toBe(JSON.parse(text).to);
            } else expect(calls).toEqual([]);
          }
          await expectStillAnswering(ws, [{ type: 'session.update', agent: null }]);
        } finally {
          ws.close();
          await ws.closed;
        }
      }),
      {
        ...chaosOptions(Number(process.env.CHAOS_RUNS ?? 30)),
        // Each outcome at least once, however few runs the time limit lets through.
        examples: [
          [
            [
              ['calls', '{"to":"+15550123"}'],
              ['calls', '{}'],
              ['notes', '{"text":"The payment went through."}'],
              ['notes', '{}'],
              ['agent', '{"agent":"reminders"}'],
            ] as [Endpoint, string][],
          ],
        ],
      },
    );
    // Each endpoint both did what it was asked and refused.
    for (const done of ['calls 201', 'calls 400', 'notes 200', 'notes 400', 'agent 200'])
      expect(seen).toContain(done);
  }, 120_000);
});
