import { sseText } from './support/fake-llm.js';
import { samples } from './support/prometheus.js';
import { useRecordingServer } from './support/recording-server.js';
import { useVoiceRig } from './support/speech-server.js';
import { postWebhook, quiet, SPEECH, TwilioCall } from './support/twilio-call.js';
import { until } from './support/waiting.js';

const AUTH_TOKEN = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
const STREAM_URL = 'wss://voice.example.com/twilio';
/** Where Twilio reaches /twilio/voice (an ingress before it, another host than the streams'). */
const VOICE_URL = 'https://hooks.example.com/twilio/voice';
const ADMIN = { Authorization: 'Bearer admin-key', 'Content-Type': 'application/json' };
const GREETING = 'Hello, this is the clinic.';
const VOICEMAIL = 'This is the clinic: please call us back about your appointment.';

/**
 * A call the agent places with `voicemail` (or `hang_up_on_machine`): Twilio's answering-machine
 * detection runs beside it, and its verdict, posted to `/twilio/voice?machine=<session>`, has the
 * session leave the message once the machine's greeting is over and end the call; a fax is hung
 * up on, a person talked to as ever.
 */
describe('a placed call that an answering machine takes', () => {
  const { server: api, url: apiUrl } = useRecordingServer();
  const rig = useVoiceRig(() => ({
    ADMIN_API_KEY: 'admin-key',
    TWILIO_ACCOUNT_SID: 'AC0001',
    TWILIO_AUTH_TOKEN: AUTH_TOKEN,
    TWILIO_API_BASE_URL: apiUrl(),
    TWILIO_STREAM_URL: STREAM_URL,
    TWILIO_VOICE_URL: VOICE_URL,
    TWILIO_FROM_NUMBER: '+15550199',
  }));
  beforeEach(() => api.respond((_req, res) => res.end('{"sid":"CA0009"}')));

  /** Places a call with `body`: the form Twilio was sent. */
  async function place(body: object): Promise<Record<string, string>> {
    const res = await fetch(`${rig.engine.httpUrl}/api/calls`, {
      method: 'POST',
      headers: ADMIN,
      body: JSON.stringify({ to: '+15550123', greeting: GREETING, ...body }),
    });
    expect(res.status).toBe(201);
    return Object.fromEntries(new URLSearchParams(api.requests.at(-1)!.body));
  }
  /** The placed call answered: Twilio streams it as its TwiML says. */
  const stream = (form: Record<string, string>) =>
    TwilioCall.fromTwiml(rig.engine.wsUrl.replace(/\/ws$/, '/twilio'), form.Twiml!, {
      authToken: AUTH_TOKEN,
      streamUrl: STREAM_URL,
    });
  /** Places a call with `body`; Twilio's form, and the call streamed once answered, greeted. */
  async function placed(body: object) {
    const greeted = rig.speech.inputs().length;
    const form = await place(body);
    const call = await stream(form);
    await until(() => rig.speech.inputs().length > greeted, 'the greeting');
    return { form, call };
  }
  /** Twilio's verdict on the call, posted where the call's form said. */
  const verdict = (form: Record<string, string>, answeredBy: string) =>
    postWebhook(
      rig.engine.httpUrl,
      form.AsyncAmdStatusCallback!,
      { AccountSid: 'AC0001', CallSid: 'CA0009', AnsweredBy: answeredBy },
      AUTH_TOKEN,
    );
  /**
   * Twilio plays what it was sent and says so (the mark after the last words): the call ends. (A
   * call whose speech was cleared ends at once.)
   */
  async function played(call: TwilioCall) {
    const marked = () => call.got.some((f) => f.event === 'mark');
    await until(() => marked() || call.closeCode !== undefined, 'the mark after the last words');
    if (marked()) call.send({ event: 'mark', streamSid: 'MZ0001', mark: { name: 'last-words' } });
    await until(() => call.closeCode !== undefined, 'the hang-up');
  }
  const answered = async () =>
    samples(await (await fetch(`${rig.engine.httpUrl}/metrics`, { headers: ADMIN })).text());

  it('asks Twilio to detect a machine, and leaves the message after its greeting, then hangs up', async () => {
    const { form, call } = await placed({ voicemail: VOICEMAIL });
    expect(form).toMatchObject({
      MachineDetection: 'DetectMessageEnd',
      AsyncAmd: 'true',
      AsyncAmdStatusCallbackMethod: 'POST',
    });
    expect(form.AsyncAmdStatusCallback).toMatch(
      /^https:\/\/hooks\.example\.com\/twilio\/voice\?machine=[0-9a-f-]{36}$/,
    );
    // The machine's greeting, over the agent's: heard as an utterance, and answered.
    rig.llm.enqueue(sseText(['Sorry, who is this?']));
    call.speak(Buffer.concat([SPEECH, quiet(1500)]));
    await until(() => rig.llm.requests.length === 1, 'the machine heard as a person');
    const transcriptions = () =>
      rig.speech.requests.filter((r) => r.path === '/audio/transcriptions').length;
    const heardBefore = transcriptions();
    // Its beep over, Twilio says a machine answered.
    const res = await verdict(form, 'machine_end_beep');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>');
    await until(() => rig.speech.inputs().includes(VOICEMAIL), 'the message');
    // What the machine records meanwhile is no one speaking: the message is said whole.
    call.speak(Buffer.concat([SPEECH, quiet(1500)]));
    await played(call);
    expect(call.closeCode).toBe(1000);
    expect(transcriptions()).toBe(heardBefore);
    expect(rig.llm.requests).toHaveLength(1);
    const metrics = await answered();
    expect(metrics.get('agent_engine_calls_answered_total{by="machine"}')).toBe(1);
    expect(metrics.get('agent_engine_sessions_ended_total{reason="answering_machine"}')).toBe(1);
  });

  it('hangs up on a fax, and on a machine with hang_up_on_machine, leaving nothing', async () => {
    // A greeting still playing when the verdict comes (one played whole ends the call once Twilio
    // returns the mark after it, as in the tests around).
    rig.speech.seconds = 10;
    for (const [body, answeredBy] of [
      [{ voicemail: VOICEMAIL }, 'fax'],
      [{ hang_up_on_machine: true }, 'machine_end_silence'],
    ] as const) {
      const { form, call } = await placed(body);
      expect(form.MachineDetection).toBe('DetectMessageEnd');
      expect((await verdict(form, answeredBy)).status).toBe(200);
      // What Twilio still plays is cleared, and the call ends at once: no last words to wait for.
      await until(() => call.closeCode !== undefined, 'the hang-up');
      expect(call.got.map((f) => f.event)).not.toContain('mark');
      expect(rig.speech.inputs()).not.toContain(VOICEMAIL);
    }
  });

  it("acts on a verdict that comes before the call's stream has reached its session", async () => {
    const form = await place({ hang_up_on_machine: true });
    expect((await verdict(form, 'machine_end_other')).status).toBe(200);
    const call = await stream(form);
    // Found as it opens, the greeting said: once Twilio has played it, the call ends.
    await played(call);
    expect(rig.speech.inputs()).not.toContain(VOICEMAIL);
  });

  it('talks on with a person, and detects nothing for a call placed without a voicemail', async () => {
    const { form, call } = await placed({ voicemail: VOICEMAIL });
    expect((await verdict(form, 'human')).status).toBe(200);
    rig.llm.enqueue(sseText(['Great, see you tomorrow.']));
    call.send({ event: 'dtmf', streamSid: 'MZ0001', dtmf: { track: 'inbound_track', digit: '1' } });
    await until(() => rig.speech.inputs().includes('Great, see you tomorrow.'), 'the answer');
    expect(call.closeCode).toBeUndefined();
    expect(rig.speech.inputs()).not.toContain(VOICEMAIL);
    expect((await answered()).get('agent_engine_calls_answered_total{by="human"}')).toBe(1);
    call.socket.close();

    const plain = await placed({});
    expect(plain.form.MachineDetection).toBeUndefined();
    expect(plain.form.AsyncAmdStatusCallback).toBeUndefined();
    plain.call.socket.close();
  });

  it('takes only verdicts Twilio signed', async () => {
    const { form, call } = await placed({ voicemail: VOICEMAIL });
    const forged = await fetch(
      form.AsyncAmdStatusCallback!.replace(/^https:\/\/[^/]+/, rig.engine.httpUrl),
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'CallSid=CA0009&AnsweredBy=machine_end_beep',
      },
    );
    expect(forged.status).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(call.closeCode).toBeUndefined();
    call.socket.close();
  });

  it.each([
    [
      { voicemail: VOICEMAIL, hang_up_on_machine: true },
      '"voicemail" and "hang_up_on_machine" go against each other: a machine gets the message, or the call ends',
    ],
    [{ voicemail: ' ' }, '"voicemail" is empty: leave it out, or set "hang_up_on_machine"'],
    [{ hang_up_on_machine: 'yes' }, '"hang_up_on_machine" must be true or false'],
  ])('refuses %j with 400', async (body, message) => {
    const res = await fetch(`${rig.engine.httpUrl}/api/calls`, {
      method: 'POST',
      headers: ADMIN,
      body: JSON.stringify({ to: '+15550123', ...body }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe(message);
  });
});
