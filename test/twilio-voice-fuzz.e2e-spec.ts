import fc from 'fast-check';
import { chaosOptions } from './support/chaos-checks.js';
import { useVoiceRig } from './support/speech-server.js';

const text = fc.oneof(
  fc.constantFrom('+15550100', 'CA0001', 'completed', 'no-answer', 'machine_end_beep', ''),
  fc.string({ maxLength: 20 }),
);

/** Twilio's form fields, and some no Twilio sends. */
const form = fc.dictionary(
  fc.oneof(
    fc.constantFrom('CallSid', 'From', 'To', 'DialCallStatus', 'AnsweredBy', 'Digits'),
    fc.string({ maxLength: 8 }),
  ),
  text,
  { maxKeys: 6 },
);

/** The query the engine gives Twilio itself (`resume`, `machine`), a line's `agent`, or others. */
const query = fc.dictionary(
  fc.constantFrom('agent', 'resume', 'x', 'agent'),
  fc.oneof(text, fc.constantFrom('billing', 'nobody')),
  { maxKeys: 2 },
);

/**
 * Random requests to `POST /twilio/voice` (a phone number's call webhook; unsigned here, as with
 * neither TWILIO_AUTH_TOKEN nor WS_API_KEY set): each is answered with TwiML that streams the
 * call, or hangs it up, never a failure of the engine.
 */
describe('random call webhooks', () => {
  const rig = useVoiceRig({ TWILIO_STREAM_URL: 'wss://voice.example.com/twilio' });

  it('are answered with TwiML, never failed', async () => {
    await fc.assert(
      fc.asyncProperty(form, query, fc.boolean(), async (fields, params, raw) => {
        const search = new URLSearchParams(params).toString();
        const body = raw
          ? Object.entries(fields)
              .map(([k, v]) => `${k}=${v}`)
              .join('&')
          : new URLSearchParams(fields).toString();
        const res = await fetch(`${rig.engine.httpUrl}/twilio/voice${search ? `?${search}` : ''}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body,
        });
        const twiml = await res.text();
        if (res.status !== 200) throw new Error(`${res.status} ${twiml} for ${search} ${body}`);
        expect(res.headers.get('content-type')).toMatch(/^text\/xml/);
        expect(twiml).toMatch(
          /^<\?xml version="1\.0" encoding="UTF-8"\?><Response>.*<\/Response>$|<Response\/>$/s,
        );
        if (!('resume' in params))
          expect(twiml).toContain('<Stream url="wss://voice.example.com/twilio">');
      }),
      chaosOptions(Number(process.env.CHAOS_RUNS ?? 40)),
    );
  }, 120_000);
});
