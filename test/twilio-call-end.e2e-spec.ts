import { createHmac } from 'node:crypto';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useRecordingServer } from './support/recording-server.js';
import { useVoiceRig } from './support/speech-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { TwilioCall } from './support/twilio-call.js';
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

  it('dials the number once Twilio has played the words before it', async () => {
    const signature = createHmac('sha1', AUTH_TOKEN)
      .update(url().replace(/^ws:/, 'wss:'))
      .digest('base64');
    const call = await TwilioCall.dial(url(), {}, { 'X-Twilio-Signature': signature });
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'transfer_to_person', arguments: {} }]),
      sseText(['Connecting you to a colleague.']),
    );
    call.send({ event: 'dtmf', streamSid: 'MZ0001', dtmf: { track: 'inbound_track', digit: '0' } });
    await until(() => call.got.some((f) => f.event === 'mark'), 'the mark after the words');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(api.requests).toHaveLength(0); // Twilio still plays them
    call.send({ event: 'mark', streamSid: 'MZ0001', mark: { name: 'last-words' } });
    await until(() => call.closeCode !== undefined, 'the stream to close');
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]).toMatchObject({
      method: 'POST',
      path: '/2010-04-01/Accounts/AC0001/Calls/CA0001.json',
      headers: { authorization: `Basic ${Buffer.from(`AC0001:${AUTH_TOKEN}`).toString('base64')}` },
    });
    expect(new URLSearchParams(api.requests[0]!.body).get('Twiml')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Dial><Number>+15550100</Number></Dial></Response>',
    );
  });
});
