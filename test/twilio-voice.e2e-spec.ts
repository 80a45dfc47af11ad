import { Logger } from '@nestjs/common';
import { sessionVariables, signWebhook, TwilioCall } from './support/twilio-call.js';
import { useVoiceRig } from './support/speech-server.js';
import { until } from './support/waiting.js';
import { sseText } from './support/fake-llm.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

const AUTH_TOKEN = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
const CALL = { AccountSid: 'AC0001', CallSid: 'CA0001', From: '+15550100', To: '+15550199' };

const sign = (url: string, form: Record<string, string>, token = AUTH_TOKEN) =>
  signWebhook(url, form, token);

/** The call webhook as Twilio posts it. */
function post(
  httpUrl: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
  query = '',
) {
  return fetch(`${httpUrl}/twilio/voice${query}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

/**
 * `POST /twilio/voice`: the phone number's "A call comes in" webhook is the engine itself, which
 * answers the TwiML that connects the call to `/twilio` (the greeting, the caller's numbers as
 * the session's variables, WS_API_KEY's token), only to Twilio when TWILIO_AUTH_TOKEN is set.
 */
describe('the call webhook (/twilio/voice), signed', () => {
  const rig = useVoiceRig({
    TWILIO_AUTH_TOKEN: AUTH_TOKEN,
    TWILIO_GREETING: 'Hello, this is the front desk.',
    WS_API_KEY: 'call-key\nold-key',
    ADMIN_API_KEY: 'admin-key',
  });
  const host = () => new URL(rig.engine.httpUrl).host;

  it('answers TwiML that connects the call, which is then greeted with its numbers at hand', async () => {
    const webhook = `https://${host()}/twilio/voice`;
    const res = await post(rig.engine.httpUrl, CALL, { 'X-Twilio-Signature': sign(webhook, CALL) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    const twiml = await res.text();
    const stream = `wss://${host()}/twilio`;
    expect(twiml).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="${stream}"><Parameter name="token" value="call-key"/><Parameter name="greeting" value="Hello, this is the front desk."/><Parameter name="user_number" value="+15550100"/><Parameter name="agent_number" value="+15550199"/><Parameter name="call_direction" value="inbound"/></Stream></Connect></Response>`,
    );
    // Twilio streams the call as the TwiML says, signing the stream's URL.
    const call = await TwilioCall.fromTwiml(rig.engine.wsUrl.replace(/\/ws$/, '/twilio'), twiml, {
      authToken: AUTH_TOKEN,
      streamUrl: stream,
    });
    await until(() => call.heard() >= 1500, 'the greeting');
    expect(rig.speech.inputs()).toEqual(['Hello, this is the front desk.']);
    expect(await sessionVariables(rig.engine.httpUrl, 'admin-key')).toEqual([
      'agent_number',
      'call_direction',
      'twilio_call_sid',
      'user_number',
    ]);
    call.send({ event: 'stop', sequenceNumber: '9', streamSid: 'MZ0001', stop: {} });
    await until(() => call.closeCode !== undefined, 'the call to close');
  });

  it.each([
    ['unsigned', () => undefined, 'no X-Twilio-Signature header'],
    [
      'signed for another caller (a forged From)',
      (url: string) => sign(url, { ...CALL, From: '+15550111' }),
      'X-Twilio-Signature does not match the URL https://HOST/twilio/voice (set TWILIO_VOICE_URL to the one Twilio was given) signed with TWILIO_AUTH_TOKEN',
    ],
    [
      'signed with another token',
      (url: string) => sign(url, CALL, 'other-token'),
      'X-Twilio-Signature does not match the URL',
    ],
  ])('refuses a request %s with 403, giving no TwiML', async (_case, signature, reason) => {
    const warned: string[] = [];
    const spy = jest
      .spyOn(Logger.prototype, 'warn')
      .mockImplementation((message: unknown) => void warned.push(String(message)));
    try {
      const signed = signature(`https://${host()}/twilio/voice`);
      const res = await post(
        rig.engine.httpUrl,
        CALL,
        signed ? { 'X-Twilio-Signature': signed } : {},
      );
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = await res.text();
      expect(body).not.toContain('call-key');
      expect(JSON.parse(body)).toMatchObject({
        ok: false,
        message: 'Twilio signature missing or wrong',
      });
      expect(warned).toHaveLength(1);
      expect(warned[0]).toContain(`Twilio call webhook refused: ${reason.replace('HOST', host())}`);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('the call webhook (/twilio/voice), unsigned', () => {
  const keyed = useVoiceRig({ WS_API_KEY: 'call-key' });

  it('is refused when the TwiML would carry WS_API_KEY to whoever asks', async () => {
    const res = await post(keyed.engine.httpUrl, CALL);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toBe(
      'WS_API_KEY is set and TWILIO_AUTH_TOKEN is not: the TwiML, which carries WS_API_KEY, is given only to requests Twilio signed',
    );
  });
});

describe('the call webhook (/twilio/voice) of an open engine', () => {
  const open = useVoiceRig({ TWILIO_STREAM_URL: 'wss://voice.example.com/agents/front-desk' });

  it('answers any request, with the stream at TWILIO_STREAM_URL and no greeting', async () => {
    const res = await post(open.engine.httpUrl, { CallSid: 'CA0002', From: '+15550100' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="wss://voice.example.com/agents/front-desk"><Parameter name="user_number" value="+15550100"/><Parameter name="call_direction" value="inbound"/></Stream></Connect></Response>',
    );
  });
});

describe('the call webhook (/twilio/voice?agent=) of a line that has an assistant of its own', () => {
  const BILLING = 'You are the billing line: invoices and payments only.';
  const rig = useVoiceRig(() => ({
    TWILIO_AUTH_TOKEN: AUTH_TOKEN,
    DTMF_TIMEOUT_MS: '100',
    // Clients choose no assistant; the line's webhook is the administrator's.
    SESSION_AGENTS: 'none',
    TWILIO_GREETING: 'Hello, this is billing.',
    LLM_TOOLS_FILE: writeToolsFile([
      { type: 'handoff', name: 'to_billing', agent: 'billing', instructions: BILLING },
    ]),
  }));
  const answered = async (query: string) => {
    const host = new URL(rig.engine.httpUrl).host;
    const signature = sign(`https://${host}/twilio/voice${query}`, CALL);
    const res = await post(rig.engine.httpUrl, CALL, { 'X-Twilio-Signature': signature }, query);
    expect(res.status).toBe(200);
    const twiml = await res.text();
    const call = await TwilioCall.fromTwiml(rig.engine.wsUrl.replace(/\/ws$/, '/twilio'), twiml, {
      authToken: AUTH_TOKEN,
      streamUrl: `wss://${host}/twilio`,
    });
    return { twiml, call };
  };
  const firstSystem = async (call: TwilioCall) => {
    const before = rig.llm.requests.length;
    rig.llm.enqueue(sseText(['Hello.']));
    call.send({ event: 'dtmf', streamSid: 'MZ0001', dtmf: { track: 'inbound_track', digit: '1' } });
    await until(() => rig.llm.requests.length > before, 'the answer');
    call.send({ event: 'stop', sequenceNumber: '9', streamSid: 'MZ0001', stop: {} });
    await until(() => call.closeCode !== undefined, 'the call to close');
    return rig.llm.requests[before]!.body.messages[0].content as string;
  };

  it('begins each call as that assistant, whatever clients of /ws may choose', async () => {
    const { twiml, call } = await answered('?agent=billing');
    expect(twiml).toContain('<Parameter name="agent" value="billing"/>');
    expect(await firstSystem(call)).toContain(BILLING);
    const ws = await WsClient.connect(rig.engine.wsUrl);
    try {
      ws.send({ type: 'session.update', agent: 'billing' });
      expect((await ws.waitFor((m) => m.type === 'error')).message).toBe(
        'this engine lets no client choose its assistant (SESSION_AGENTS=none); nothing was changed',
      );
    } finally {
      ws.close();
    }
  });

  it("answers a call all the same when the tools lack the assistant, as the engine's own", async () => {
    const { call } = await answered('?agent=sales');
    // A voice call on the phone's audio all the same: the greeting is heard.
    await until(() => call.heard() >= 1500, 'the greeting');
    expect(await firstSystem(call)).not.toContain(BILLING);
  });
});
