import { samples } from './support/prometheus.js';
import { useRecordingServer } from './support/recording-server.js';
import { useVoiceRig } from './support/speech-server.js';
import { sessionVariables, TwilioCall } from './support/twilio-call.js';
import { until, untilAsync } from './support/waiting.js';
import { sseText } from './support/fake-llm.js';
import { writeToolsFile } from './support/tools-file.js';

const AUTH_TOKEN = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
/** Where Twilio reaches the engine's /twilio (an ingress before it). */
const STREAM_URL = 'wss://voice.example.com/twilio';
const ADMIN = { Authorization: 'Bearer admin-key', 'Content-Type': 'application/json' };
const REMINDERS = 'You are the reminders line: appointments only.';

/**
 * `POST /api/calls`: the agent calls someone. Twilio's REST API (here a server standing for it)
 * places the call with TwiML that streams it, once answered, to `/twilio`, where the session greets
 * the person and has the call's variables.
 */
describe('calls the agent places (POST /api/calls)', () => {
  const { server: api, url: apiUrl } = useRecordingServer();
  const rig = useVoiceRig(() => ({
    ADMIN_API_KEY: 'admin-key',
    WS_API_KEY: 'call-key',
    TWILIO_ACCOUNT_SID: 'AC0001',
    TWILIO_AUTH_TOKEN: AUTH_TOKEN,
    TWILIO_API_BASE_URL: apiUrl(),
    TWILIO_STREAM_URL: STREAM_URL,
    TWILIO_FROM_NUMBER: '+15550199',
    LLM_TOOLS_FILE: writeToolsFile([
      { type: 'handoff', name: 'to_reminders', agent: 'reminders', instructions: REMINDERS },
    ]),
  }));
  const place = (body: unknown, headers: Record<string, string> = ADMIN) =>
    fetch(`${rig.engine.httpUrl}/api/calls`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });

  it('places the call, and greets who answers with the call at hand', async () => {
    api.respond((_req, res) => {
      res.statusCode = 201;
      res.end('{"sid":"CA0009","status":"queued"}');
    });
    const res = await place({
      to: '+15550123',
      greeting: 'Hello, this is the clinic, calling about your appointment tomorrow.',
      variables: { appointment_id: 'A-7' },
      instructions: 'You are calling Ada to confirm her appointment A-7, tomorrow at 3 pm.',
      language: 'en',
      max_secs: 600,
      agent: 'reminders',
      status_callback: 'https://crm.example.com/twilio/call-status?call=A-7',
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({
      ok: true,
      call_sid: 'CA0009',
      to: '+15550123',
      from: '+15550199',
    });
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]).toMatchObject({
      method: 'POST',
      path: '/2010-04-01/Accounts/AC0001/Calls.json',
      headers: { authorization: `Basic ${Buffer.from(`AC0001:${AUTH_TOKEN}`).toString('base64')}` },
    });
    const form = Object.fromEntries(new URLSearchParams(api.requests[0]!.body));
    expect(form).toMatchObject({
      To: '+15550123',
      From: '+15550199',
      // Twilio tells the system that asked for the call how it ended (answered or not).
      StatusCallback: 'https://crm.example.com/twilio/call-status?call=A-7',
      StatusCallbackMethod: 'POST',
    });
    // No answering machine looked for unless asked (it costs per call).
    expect(form.MachineDetection).toBeUndefined();
    // The session waits in the store: the stream resumes it.
    expect(form.Twiml).toMatch(
      new RegExp(
        `^<\\?xml version="1.0" encoding="UTF-8"\\?><Response><Connect><Stream url="${STREAM_URL}"><Parameter name="token" value="call-key"/><Parameter name="greeting" value="Hello, this is the clinic, calling about your appointment tomorrow."/><Parameter name="resume" value="[\\w-]+"/></Stream></Connect></Response>$`,
      ),
    );
    // Answered: Twilio streams the call as the TwiML says, signing the stream's URL.
    const call = await TwilioCall.fromTwiml(
      rig.engine.wsUrl.replace(/\/ws$/, '/twilio'),
      form.Twiml!,
      { authToken: AUTH_TOKEN, streamUrl: STREAM_URL },
    );
    await until(() => call.heard() >= 1500, 'the greeting');
    expect(rig.speech.inputs()).toEqual([
      'Hello, this is the clinic, calling about your appointment tomorrow.',
    ]);
    // Its variables, the call's id added once it is answered.
    await untilAsync(
      async () =>
        (await sessionVariables(rig.engine.httpUrl, 'admin-key')).includes('twilio_call_sid'),
      'the call id',
    );
    expect(await sessionVariables(rig.engine.httpUrl, 'admin-key')).toEqual([
      'agent_number',
      'appointment_id',
      'call_direction',
      'twilio_call_sid',
      'user_number',
    ]);
    // The model knows why it calls from the first answer on.
    rig.llm.enqueue(sseText(['Great, see you tomorrow.']));
    call.send({ event: 'dtmf', streamSid: 'MZ0001', dtmf: { track: 'inbound_track', digit: '1' } });
    await until(() => rig.llm.requests.length === 1, 'the answer');
    // As the assistant the call began with: its instructions, then the call's own.
    expect(rig.llm.requests[0]!.body.messages[0].content).toMatch(
      new RegExp(
        `${REMINDERS}\\n\\nYou are calling Ada to confirm her appointment A-7, tomorrow at 3 pm\\.\\n`,
      ),
    );
    call.send({ event: 'stop', sequenceNumber: '9', streamSid: 'MZ0001', stop: {} });
    await until(() => call.closeCode !== undefined, 'the call to close');
  });

  it.each([
    [{}, '"to" is required: who is called'],
    [
      { to: '555-0123' },
      '"to" must be a phone number in E.164 form ("+15550100") or a SIP address ("sip:desk@pbx.example.com")',
    ],
    [
      { to: '+15550123', from: 'the clinic' },
      '"from" must be a phone number in E.164 form ("+15550199")',
    ],
    [
      { to: '+15550123', greet: 'Hi' },
      'unknown field "greet": expected to, from, greeting, greeting_interruptible, variables, instructions, language, timezone, voice, max_secs, agent, phrases, voicemail, hang_up_on_machine, status_callback',
    ],
    [
      { to: '+15550123', greeting_interruptible: 'no' },
      '"greeting_interruptible" must be true or false',
    ],
    [
      { to: '+15550123', variables: { user_number: '+1' } },
      'variable "user_number" is the call\'s own: choose another name',
    ],
    [
      { to: '+15550123', variables: { 'a-b': 'x' } },
      'variable "a-b": a name is 1 to 64 letters, digits or "_"',
    ],
    [
      { to: '+15550123', language: 'Spanish' },
      '"language" must be a language code such as en, it, es',
    ],
    [
      { to: '+15550123', agent: 'billing' },
      'unknown assistant "billing" in "agent": the assistants are reminders',
    ],
    [
      { to: '+15550123', max_secs: 0 },
      '"max_secs" must be a whole number of seconds from 1 to 604800, or null for SESSION_MAX_SECS',
    ],
    [
      { to: '+15550123', status_callback: '/twilio/status' },
      '"status_callback" must be an absolute http:// or https:// URL',
    ],
  ])('refuses %j with 400, placing no call', async (body, message) => {
    const res = await place(body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ ok: false, statusCode: 400, message });
    expect(api.requests).toHaveLength(0);
  });

  it("says why Twilio did not place it (502), and takes only the admin's key", async () => {
    api.respond((_req, res) => {
      res.statusCode = 400;
      res.end(
        '{"code":21211,"message":"The \'To\' number +15550123 is not a valid phone number.","status":400}',
      );
    });
    const res = await place({ to: '+15550123' });
    expect(res.status).toBe(502);
    expect(((await res.json()) as { message: string }).message).toBe(
      "Twilio's API refused to place a call (HTTP 400): The 'To' number +15550123 is not a valid phone number.",
    );
    const anyone = await place({ to: '+15550123' }, { 'Content-Type': 'application/json' });
    expect(anyone.status).toBe(401);
    expect(api.requests).toHaveLength(1);
    // The first test's call was placed; this one was refused.
    const metrics = samples(
      await (await fetch(`${rig.engine.httpUrl}/metrics`, { headers: ADMIN })).text(),
    );
    expect(metrics.get('agent_engine_calls_placed_total{outcome="placed"}')).toBe(1);
    expect(metrics.get('agent_engine_calls_placed_total{outcome="refused"}')).toBe(1);
    // Its session, made before it rang, was started by its stream, not resumed.
    expect(metrics.get('agent_engine_sessions_total{resumed="false"}')).toBe(1);
    expect(metrics.get('agent_engine_sessions_total{resumed="true"}')).toBeUndefined();
  });

  it('has the stream say a greeting the called person may not cut, when asked', async () => {
    api.respond((_req, res) => {
      res.statusCode = 201;
      res.end('{"sid":"CA0010","status":"queued"}');
    });
    const greeting = 'This call is recorded.';
    const res = await place({ to: '+15550123', greeting, greeting_interruptible: false });
    expect(res.status).toBe(201);
    const form = Object.fromEntries(new URLSearchParams(api.requests.at(-1)!.body));
    expect(form.Twiml).toContain(
      `<Parameter name="greeting" value="${greeting}"/><Parameter name="greeting_interruptible" value="false"/>`,
    );
  });
});

describe('POST /api/calls without what it needs', () => {
  const open = useVoiceRig({ TWILIO_ACCOUNT_SID: 'AC0001' });
  const keyed = useVoiceRig({ ADMIN_API_KEY: 'admin-key', TWILIO_ACCOUNT_SID: 'AC0001' });
  const { server: api, url: apiUrl } = useRecordingServer();
  const storeless = useVoiceRig(() => ({
    ADMIN_API_KEY: 'admin-key',
    TWILIO_ACCOUNT_SID: 'AC0001',
    TWILIO_AUTH_TOKEN: AUTH_TOKEN,
    TWILIO_API_BASE_URL: apiUrl(),
    TWILIO_STREAM_URL: STREAM_URL,
    SESSION_RESUME_SECS: '0',
  }));

  it('is refused without ADMIN_API_KEY (403), and names the Twilio settings missing (503)', async () => {
    const post = (url: string) =>
      fetch(`${url}/api/calls`, { method: 'POST', headers: ADMIN, body: '{"to":"+15550123"}' });
    const refused = await post(open.engine.httpUrl);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toBe(
      'set ADMIN_API_KEY to use /api/calls: calls cost money and reach anyone',
    );
    const missing = await post(keyed.engine.httpUrl);
    expect(missing.status).toBe(503);
    expect(((await missing.json()) as { message: string }).message).toBe(
      'calls are placed through Twilio, and streamed to the engine at the URL Twilio reaches it: set TWILIO_AUTH_TOKEN, TWILIO_STREAM_URL',
    );
  });

  it('without a session store, gives the variables as parameters, and cannot keep instructions or a voicemail', async () => {
    const post = (body: object) =>
      fetch(`${storeless.engine.httpUrl}/api/calls`, {
        method: 'POST',
        headers: ADMIN,
        body: JSON.stringify({ to: '+15550123', from: '+15550199', ...body }),
      });
    const kept = await post({ instructions: 'Confirm the appointment.', voicemail: 'Call back.' });
    expect(kept.status).toBe(503);
    expect(((await kept.json()) as { message: string }).message).toBe(
      "a call's instructions, voicemail wait for it in the session store: set SESSION_RESUME_SECS above 0",
    );
    api.respond((_req, res) => res.end('{"sid":"CA0010"}'));
    // `hang_up_on_machine: false` keeps nothing: taken without a store.
    expect(
      (await post({ variables: { appointment_id: 'A-7' }, hang_up_on_machine: false })).status,
    ).toBe(201);
    expect(new URLSearchParams(api.requests[0]!.body).get('Twiml')).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="${STREAM_URL}"><Parameter name="user_number" value="+15550123"/><Parameter name="agent_number" value="+15550199"/><Parameter name="call_direction" value="outbound"/><Parameter name="appointment_id" value="A-7"/></Stream></Connect></Response>`,
    );
  });
});
