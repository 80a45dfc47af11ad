import WebSocket from 'ws';
import { sseText } from './support/fake-llm.js';
import { quiet, SPEECH, TwilioCall } from './support/twilio-call.js';
import { useVoiceRig } from './support/speech-server.js';
import { until } from './support/waiting.js';

/**
 * `/twilio`: a call's Twilio Media Stream joined to a session as is, no gateway of one's own: the
 * greeting and the answers played back on the call, the caller's words heard and answered, a
 * barge-in clearing what Twilio still had to play.
 */
describe('Twilio Media Streams (/twilio)', () => {
  const rig = useVoiceRig({ WS_API_KEY: 'call-key', ADMIN_API_KEY: 'admin-key' });
  const { llm, speech } = rig;
  const url = () => rig.engine.wsUrl.replace(/\/ws$/, '/twilio');

  it('greets the caller, hears them out, and answers on the call', async () => {
    const call = await TwilioCall.dial(url(), {
      token: 'call-key',
      greeting: 'Hello, this is the front desk.',
      customer_id: 'C-42',
    });
    // The greeting's 0.2 s of speech, as 8 kHz μ-law: about 1600 bytes, in frames of the stream.
    await until(() => call.heard() >= 1500, 'the greeting');
    expect(call.got.every((f) => f.streamSid === 'MZ0001')).toBe(true);
    const res = await fetch(`${rig.engine.httpUrl}/api/sessions`, {
      headers: { Authorization: 'Bearer admin-key' },
    });
    const listed = (await res.json()) as {
      sessions: { session_id: string; channel: string; modality: string }[];
    };
    expect(listed.sessions).toMatchObject([{ channel: 'twilio', modality: 'voice' }]);
    // The call's parameters and its id are the session's variables (their names shown).
    const detail = (await (
      await fetch(`${rig.engine.httpUrl}/api/sessions/${listed.sessions[0]!.session_id}`, {
        headers: { Authorization: 'Bearer admin-key' },
      })
    ).json()) as { settings: { variables: string[] } };
    expect(detail.settings.variables.sort()).toEqual(['customer_id', 'twilio_call_sid']);
    llm.enqueue(sseText(['It is sunny.']));
    // Sent ahead of playback (SPEECH_AUDIO_LEAD_MS), the greeting has played 0.2 s after it
    // began: the caller answers once it has (their line's audio goes out all at once here, not
    // in real time, so it would cut the greeting short).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const from = call.got.length;
    call.speak(Buffer.concat([quiet(500), SPEECH, quiet(1000)]));
    await until(() => call.heard(from) >= 1500, 'the answer', 10_000);
    expect(llm.requests[0]!.body.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Hello, this is the front desk.' },
      { role: 'user', content: speech.transcript },
    ]);
    expect(speech.inputs()).toEqual(['Hello, this is the front desk.', 'It is sunny.']);
    call.send({ event: 'stop', sequenceNumber: '99', streamSid: 'MZ0001', stop: {} });
    await until(() => call.closeCode !== undefined, 'the call to close');
    expect(call.closeCode).toBe(1000);
  });

  it('clears what Twilio still had to play when the caller speaks over the agent', async () => {
    speech.seconds = 30; // the agent speaks for long
    const call = await TwilioCall.dial(url(), { token: 'call-key', greeting: 'Hello there.' });
    await until(() => call.heard() > 0, 'the greeting');
    call.speak(quiet(1000)); // the line's silence is no barge-in
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(call.got.some((f) => f.event === 'clear')).toBe(false);
    llm.enqueue(sseText(['Of course.']));
    call.speak(Buffer.concat([SPEECH, quiet(1000)]));
    await until(() => call.got.some((f) => f.event === 'clear'), 'a clear', 10_000);
    const clearAt = call.got.findIndex((f) => f.event === 'clear');
    expect(call.got[clearAt]).toEqual({ event: 'clear', streamSid: 'MZ0001' });
    // The answer to what the caller said plays; the greeting's turn, cut, cleared nothing twice.
    await until(() => call.heard(clearAt) > 0, 'the answer', 10_000);
    expect(call.got.filter((f) => f.event === 'clear')).toHaveLength(1);
    call.socket.close();
  });

  it('plays a greeting the caller may not cut whole, then answers what they said over it', async () => {
    speech.seconds = 2;
    const greeting = 'This call is recorded.';
    const call = await TwilioCall.dial(url(), {
      token: 'call-key',
      greeting,
      greeting_interruptible: 'false',
    });
    await until(() => call.heard() > 0, 'the greeting');
    llm.enqueue(sseText(['How can I help?']));
    speech.seconds = 0.2;
    call.speak(Buffer.concat([SPEECH, quiet(1000)]));
    await until(() => llm.requests.length === 1, 'the answer', 10_000);
    // Its 2 s of speech all played (8 kHz μ-law), nothing cleared; a cut would have left the
    // greeting, one sentence, out of the conversation.
    await until(() => call.heard() >= 16_000, 'the whole greeting');
    expect(call.got.some((f) => f.event === 'clear')).toBe(false);
    expect(llm.requests[0]!.body.messages.slice(1)).toEqual([
      { role: 'assistant', content: greeting },
      { role: 'user', content: speech.transcript },
    ]);
    call.socket.close();
  });

  it('sends no clear when the caller speaks while nothing plays', async () => {
    const call = await TwilioCall.dial(url(), { token: 'call-key' });
    llm.enqueue(sseText(['It is sunny.']));
    call.speak(Buffer.concat([SPEECH, quiet(1000)]));
    await until(() => call.heard() > 0, 'the answer', 10_000);
    expect(llm.requests).toHaveLength(1);
    expect(call.got.some((f) => f.event === 'clear')).toBe(false);
    call.socket.close();
  });

  it('gives the model the keys the caller pressed; the first one cuts the agent short', async () => {
    speech.seconds = 30; // the greeting goes on long
    const call = await TwilioCall.dial(url(), {
      token: 'call-key',
      greeting: 'Press 1 for sales.',
    });
    await until(() => call.heard() > 0, 'the greeting');
    llm.enqueue(sseText(['Account 42 found.']));
    const press = (digit: string) =>
      call.send({
        event: 'dtmf',
        streamSid: 'MZ0001',
        sequenceNumber: '5',
        dtmf: { track: 'inbound_track', digit },
      });
    press('4');
    await until(() => call.got.some((f) => f.event === 'clear'), 'a clear');
    speech.seconds = 0.2;
    const from = call.got.length;
    press('2');
    press('#');
    await until(() => call.heard(from) > 0, 'the answer', 10_000);
    expect(llm.requests[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'DTMF: 42#' });
    call.socket.close();
  });

  it('refuses a stream without the engine’s key in its token parameter', async () => {
    const call = await TwilioCall.dial(url(), { token: 'wrong' });
    await until(() => call.closeCode !== undefined, 'the refusal');
    expect(call.closeCode).toBe(1008);
    expect(call.heard()).toBe(0);
  });

  it('ignores frames that are no Twilio message, and the call goes on', async () => {
    const socket = new WebSocket(url());
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    for (const frame of ['null', '5', '[]', 'not json', '{"event":"media","media":null}'])
      socket.send(frame);
    socket.send(
      JSON.stringify({ event: 'start', start: { streamSid: 'MZ2', customParameters: null } }),
    );
    const closed = await new Promise<number>((resolve) => socket.once('close', resolve));
    // No token parameter: refused as such, the engine still serving.
    expect(closed).toBe(1008);
    const call = await TwilioCall.dial(url(), { token: 'call-key', greeting: 'Hello.' });
    await until(() => call.heard() > 0, 'the greeting');
    call.socket.close();
  });
});
