import { createHmac } from 'node:crypto';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { samples } from './support/prometheus.js';
import { useRecordingServer } from './support/recording-server.js';
import { useVoiceRig } from './support/speech-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { postWebhook, TwilioCall } from './support/twilio-call.js';
import { until } from './support/waiting.js';

const AUTH_TOKEN = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';

/**
 * A call the engine ends (the model's `end_session` tool) hangs up once Twilio has played the
 * goodbye: the bridge marks the end of the speech it sent and closes the stream when Twilio
 * returns the mark, never cutting the last words Twilio still held.
 */
describe('/twilio: the agent hangs up', () => {
  const rig = useVoiceRig({
    LLM_TOOLS_FILE: writeToolsFile([{ type: 'end_session', name: 'hang_up' }]),
  });
  const { llm } = rig;
  const url = () => rig.engine.wsUrl.replace(/\/ws$/, '/twilio');

  it('closes the stream when Twilio has played the goodbye', async () => {
    const call = await TwilioCall.dial(url(), {});
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'hang_up', arguments: {} }]),
      sseText(['Goodbye!']),
    );
    call.send({ event: 'dtmf', streamSid: 'MZ0001', dtmf: { track: 'inbound_track', digit: '#' } });
    await until(() => call.got.some((f) => f.event === 'mark'), 'the mark after the goodbye');
    const mark = call.got.find((f) => f.event === 'mark')!;
    expect(mark).toEqual({ event: 'mark', streamSid: 'MZ0001', mark: { name: 'last-words' } });
    // Speech before the mark: the goodbye.
    expect(call.heard()).toBeGreaterThan(0);
    expect(call.got.indexOf(mark)).toBeGreaterThan(call.got.findIndex((f) => f.event === 'media'));
    // Twilio still plays it: the call stays up until the mark comes back.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(call.closeCode).toBeUndefined();
    call.send({ event: 'mark', streamSid: 'MZ0001', sequenceNumber: '9', mark: mark.mark });
    await until(() => call.closeCode !== undefined, 'the hang-up');
    expect(call.closeCode).toBe(1000);
    expect(llm.requests[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'DTMF: #' });
  });
});

/**
 * The model's `transfer_call`: once Twilio has played the words before it, the bridge replaces
 * the call's TwiML with a `<Dial>` through Twilio's REST API (here a server standing for it).
 */
describe('/twilio: the agent transfers the call', () => {
  const { server: api, url: apiUrl } = useRecordingServer();
  const rig = useVoiceRig(() => ({
    TWILIO_ACCOUNT_SID: 'AC0001',
    TWILIO_AUTH_TOKEN: AUTH_TOKEN,
    TWILIO_API_BASE_URL: apiUrl(),
    LLM_TOOLS_FILE: writeToolsFile([
      { type: 'transfer_call', name: 'transfer_to_person', to: '+15550100' },
    ]),
  }));
  const url = () => rig.engine.wsUrl.replace(/\/ws$/, '/twilio');
  const host = () => new URL(rig.engine.httpUrl).host;
  /** A stream of the call, signed as Twilio signs it. */
  const stream = (parameters: Record<string, string> = {}) =>
    TwilioCall.dial(url(), parameters, {
      'X-Twilio-Signature': createHmac('sha1', AUTH_TOKEN)
        .update(url().replace(/^ws:/, 'wss:'))
        .digest('base64'),
    });
  /** The agent transfers the call (a key pressed, then its answer); the TwiML Twilio was sent. */
  async function transferred(call: TwilioCall): Promise<string> {
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'transfer_to_person', arguments: {} }]),
      sseText(['Connecting you to a colleague.']),
    );
    call.send({ event: 'dtmf', streamSid: 'MZ0001', dtmf: { track: 'inbound_track', digit: '0' } });
    // A busy machine (the suite's other worker) may take seconds over the two requests and speech.
    await until(
      () => call.got.some((f) => f.event === 'mark'),
      () =>
        `the mark after the words (got ${call.got.map((f) => f.event).join(', ')}; closed ${call.closeCode})`,
      15_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(api.requests).toHaveLength(0); // Twilio still plays them
    call.send({ event: 'mark', streamSid: 'MZ0001', mark: { name: 'last-words' } });
    await until(() => call.closeCode !== undefined, 'the stream to close');
    expect(api.requests).toHaveLength(1);
    return new URLSearchParams(api.requests[0]!.body).get('Twiml')!;
  }
  /** Twilio's request of the dial's `action` once the dial has ended, signed. */
  function dialEnded(action: string, form: Record<string, string>) {
    return postWebhook(rig.engine.httpUrl, action, form, AUTH_TOKEN);
  }

  it('dials the number once Twilio has played the words before it', async () => {
    const twiml = await transferred(await stream());
    expect(api.requests[0]).toMatchObject({
      method: 'POST',
      path: '/2010-04-01/Accounts/AC0001/Calls/CA0001.json',
      headers: { authorization: `Basic ${Buffer.from(`AC0001:${AUTH_TOKEN}`).toString('base64')}` },
    });
    expect(twiml).toMatch(
      new RegExp(
        `^<\\?xml version="1.0" encoding="UTF-8"\\?><Response><Dial action="https://${host()}/twilio/voice\\?resume=[\\w-]+" method="POST" timeout="30"><Number>\\+15550100</Number></Dial></Response>$`,
      ),
    );
    // Someone answered: when they hang up, so does the call.
    const action = /action="([^"]+)"/.exec(twiml)![1]!;
    const done = await dialEnded(action, { CallSid: 'CA0001', DialCallStatus: 'completed' });
    expect(await done.text()).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>',
    );
  });

  it('brings a call no one answered back to the agent, with its conversation', async () => {
    const call = await stream({ customer_id: 'C-42' });
    const twiml = await transferred(call);
    const action = /action="([^"]+)"/.exec(twiml)![1]!;
    const res = await dialEnded(action, { CallSid: 'CA0001', DialCallStatus: 'no-answer' });
    expect(res.status).toBe(200);
    const back = await res.text();
    const token = new URL(action).searchParams.get('resume')!;
    expect(back).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="wss://${host()}/twilio"><Parameter name="resume" value="${token}"/><Parameter name="transfer_status" value="no-answer"/></Stream></Connect></Response>`,
    );
    // The share of transfers that reached a person (the test before this one was answered).
    const metrics = samples(await (await fetch(`${rig.engine.httpUrl}/metrics`)).text());
    expect(metrics.get('agent_engine_transfers_ended_total{outcome="answered"}')).toBe(1);
    expect(metrics.get('agent_engine_transfers_ended_total{outcome="unanswered"}')).toBe(1);
    // Twilio streams the call again, as that TwiML says: the agent says no one answered.
    const again = await stream({ resume: token, transfer_status: 'no-answer' });
    const unanswered =
      'I am sorry, no one could take your call just now. Is there anything else I can help you with?';
    // Synthesised a sentence at a time.
    await until(
      () => rig.speech.inputs().includes('Is there anything else I can help you with?'),
      'the apology',
    );
    await new Promise((resolve) => setTimeout(resolve, 800)); // played whole (a key would cut it)
    rig.llm.enqueue(sseText(['Of course.']));
    again.send({
      event: 'dtmf',
      streamSid: 'MZ0001',
      dtmf: { track: 'inbound_track', digit: '#' },
    });
    await until(() => rig.llm.requests.length === 3, 'the next turn');
    // The conversation goes on where it was, the apology in it.
    expect(
      rig.llm.requests[2]!.body.messages.slice(1).map(
        (m: { role: string; content: string | null }) => `${m.role}: ${m.content}`,
      ),
    ).toEqual([
      'user: DTMF: 0',
      'assistant: null',
      'tool: The call is transferred once this reply has been given: tell the caller now if you have not.',
      `assistant: Connecting you to a colleague. ${unanswered}`,
      'user: DTMF: #',
    ]);
    again.send({ event: 'stop', sequenceNumber: '9', streamSid: 'MZ0001', stop: {} });
  });
});
