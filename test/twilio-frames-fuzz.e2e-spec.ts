import fc from 'fast-check';
import WebSocket from 'ws';
import { chaosOptions } from './support/chaos-checks.js';
import { sseText } from './support/fake-llm.js';
import { useVoiceRig } from './support/speech-server.js';
import { expectStillAnswering } from './support/still-answering.js';
import { SPEECH, TwilioCall } from './support/twilio-call.js';
import { until, untilAsync } from './support/waiting.js';
import { WsClient } from './support/ws-client.js';

/** Text a field may hold: plain, empty, half a character, or any. */
const text = fc.oneof(
  fc.constantFrom('Hello, this is the clinic.', '', 'a\ud800', 'CA0001', 'false'),
  fc.string({ maxLength: 12 }),
);
/** Any JSON, or text (most often). */
const anything = fc.oneof({ weight: 3, arbitrary: text }, fc.jsonValue({ maxDepth: 2 }));

/** The stream's parameters: the bridge's own names and variables', given text or any JSON. */
const parameters = fc.dictionary(
  fc.oneof(
    fc.constantFrom('token', 'agent', 'greeting', 'greeting_interruptible', 'resume'),
    fc.constantFrom('transfer_status', 'customer_id', 'bad name', 'twilio_call_sid'),
    fc.string({ maxLength: 8 }),
  ),
  anything,
  { maxKeys: 4 },
);

/** A μ-law payload: of the call's speech, of any bytes, or no base64 at all. */
const payload = fc.oneof(
  fc
    .nat({ max: SPEECH.length - 160 })
    .map((at) => SPEECH.subarray(at, at + 160).toString('base64')),
  fc.uint8Array({ maxLength: 400 }).map((bytes) => Buffer.from(bytes).toString('base64')),
  anything,
);

/** What Twilio's Media Streams send, well formed or not, and what no Twilio sends. */
const frame = fc.oneof(
  fc
    .record(
      { streamSid: anything, callSid: anything, customParameters: parameters },
      { requiredKeys: [] },
    )
    .map((start) => ({ event: 'start', start })),
  {
    weight: 4,
    arbitrary: fc
      .record(
        { track: fc.constantFrom('inbound', 'outbound', 7), payload },
        { requiredKeys: ['payload'] },
      )
      .map((media) => ({ event: 'media', media })),
  },
  fc.oneof(fc.constantFrom('1', '#', 'D', '12', 'x'), anything).map((digit) => ({
    event: 'dtmf',
    dtmf: { digit },
  })),
  fc.constantFrom('last-words', 'other').map((name) => ({ event: 'mark', mark: { name } })),
  fc.constantFrom({ event: 'stop' }, { event: 'connected', protocol: 'Call' }),
  fc.record(
    { event: anything, start: anything, media: anything, dtmf: anything, mark: anything },
    {
      requiredKeys: [],
    },
  ),
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ maxLength: 20 }),
  fc.uint8Array({ maxLength: 50 }).map((bytes) => Buffer.from(bytes)),
);

const ADMIN = { headers: { Authorization: 'Bearer admin-key' } };

/**
 * Random frames on `/twilio` (a stream that is not Twilio's, or a Twilio that changed): whatever
 * they are, the call ends cleanly or goes on, the engine never fails (its process lives; `/ws`
 * clients are answered), and no session outlives its call.
 */
describe('random Twilio media-stream frames', () => {
  const rig = useVoiceRig({ ADMIN_API_KEY: 'admin-key' });
  const url = () => rig.engine.wsUrl.replace(/\/ws$/, '/twilio');

  /** The sessions open on the engine. */
  const openSessions = async () =>
    ((await (await fetch(`${rig.engine.httpUrl}/api/sessions`, ADMIN)).json()) as { count: number })
      .count;

  it('end the call or go on, never fail the engine, and leave no session behind', async () => {
    rig.llm.fallback = () => sseText(['Fine.']);
    const codes = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 12 }), async (frames) => {
        const call = new WebSocket(url());
        await new Promise((resolve, reject) => call.once('open', resolve).once('error', reject));
        const closed = new Promise<number>((resolve) => call.once('close', resolve));
        for (const f of frames)
          if (call.readyState === WebSocket.OPEN)
            call.send(Buffer.isBuffer(f) ? f : typeof f === 'string' ? f : JSON.stringify(f));
        // Whatever the call went through, a client of /ws is answered.
        const ws = await WsClient.connect(rig.engine.wsUrl);
        try {
          await expectStillAnswering(ws, [{ type: 'session.update', modality: 'text' }]);
        } finally {
          ws.close();
          await ws.closed;
        }
        if (call.readyState === WebSocket.OPEN) call.close(1000);
        const code = await closed;
        codes.add(code);
        // Closed by the engine (a `stop`, a session it refused) or by Twilio, cleanly.
        expect([1000, 1005]).toContain(code);
        await untilAsync(async () => (await openSessions()) === 0, 'no session left');
      }),
      chaosOptions(Number(process.env.CHAOS_RUNS ?? 30)),
    );
    expect(codes.size).toBeGreaterThan(0);
  }, 120_000);
});

describe('a Twilio stream resuming with half a character in its token', () => {
  const rig = useVoiceRig({ ADMIN_API_KEY: 'admin-key' });

  it('gets a new session (the token is unknown), greets the caller and ends cleanly', async () => {
    // Found by the suite above: the token written into the session's URL threw (URIError) out
    // of the frame's handler, and the process ended.
    const call = await TwilioCall.dial(rig.engine.wsUrl.replace(/\/ws$/, '/twilio'), {
      resume: 'a\ud800',
      greeting: 'Hello again.',
    });
    await until(() => call.heard() >= 1500, 'the greeting');
    const listed = (await (await fetch(`${rig.engine.httpUrl}/api/sessions`, ADMIN)).json()) as {
      sessions: { channel: string }[];
    };
    expect(listed.sessions).toMatchObject([{ channel: 'twilio' }]);
    call.send({ event: 'stop', streamSid: 'MZ0001', stop: {} });
    await until(() => call.closeCode !== undefined, 'the call to end');
    expect(call.closeCode).toBe(1000);
  });
});
