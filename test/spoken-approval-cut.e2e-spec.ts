import { PAY_PROMPT as PROMPT, usePayRig } from './support/pay-rig.js';
import { quiet, SPEECH, TwilioCall } from './support/twilio-call.js';
import { until } from './support/waiting.js';
import type { WsClient } from './support/ws-client.js';

/**
 * A call's approval answered while its prompt is still being said cuts the prompt short, as an
 * IVR's menu stops at the key: the rest is not sent, the client drops what it has not played
 * (`audio_clear`; Twilio's `clear` on `/twilio`), and the turn goes on.
 */
describe('a spoken prompt cut by its answer', () => {
  const { rig, service, enqueuePayment, paying: asked, questionsCounted } = usePayRig();
  const { speech } = rig;
  /** How long the payment service takes to answer. */
  let payMs = 0;
  beforeEach(() => {
    payMs = 0;
    service.respond((_req, res) => void setTimeout(() => res.end('paid'), payMs));
  });
  afterEach(() => speech.respondAsSpeech());

  /** The prompt is 3 s of speech, each byte 1; the answer's 0.2 s, each byte 3 (24 kHz PCM). */
  function markedSpeech() {
    speech.respond((req, res) => {
      const { input } = JSON.parse(req.body) as { input: string };
      const [seconds, mark] = input === PROMPT ? [3, 1] : [0.2, 3];
      res.writeHead(200, { 'Content-Type': 'audio/pcm' }).end(Buffer.alloc(seconds * 48_000, mark));
    });
  }
  /** The seconds of audio of `mark` among `messages`. */
  const seconds = (messages: { type: string; data?: string }[], mark: number) =>
    messages
      .filter((m) => m.type === 'audio')
      .map((m) => Buffer.from(m.data!, 'base64'))
      .filter((data) => data[0] === mark)
      .reduce((n, data) => n + data.length / 48_000, 0);

  /** A voice session whose model asks to pay 120 euros (then says "Done."), its prompt marked. */
  async function paying() {
    markedSpeech();
    return asked();
  }

  const answers: [string, (ws: WsClient) => void, boolean][] = [
    ['the yes key', (ws) => ws.send({ type: 'dtmf', digits: '1' }), true],
    ['a typed yes', (ws) => ws.send({ type: 'user_text', text: 'Yes, please.' }), true],
    [
      "the client's own answer",
      (ws) => ws.send({ type: 'tool_confirm', id: 'call_pay', approved: true }),
      false,
    ],
  ];
  it.each(answers)('cuts the prompt at %s, and the turn goes on', async (_, answer, told) => {
    const cuts = await questionsCounted('cut');
    const { ws, from } = await paying();
    // The prompt has begun to play.
    await ws.waitFor((m) => m.type === 'audio' && Buffer.from(m.data, 'base64')[0] === 1, from);
    answer(ws);
    expect(await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000)).toMatchObject({
      text: 'Done.',
    });
    await ws.waitFor((m) => m.type === 'audio_end', from);
    const turn = ws.messages.slice(from);
    const clearAt = turn.findIndex((m) => m.type === 'audio_clear');
    expect(clearAt).toBeGreaterThan(0);
    expect(await questionsCounted('cut')).toBe(cuts + 1);
    expect(turn.filter((m) => m.type === 'audio_clear')).toHaveLength(1);
    if (told) expect(turn.findIndex((m) => m.type === 'tool_confirmed')).toBeLessThan(clearAt);
    // What was sent of the prompt: about SPEECH_AUDIO_LEAD_MS (1 s) of its 3 s, none after the
    // clear; then the answer, whole.
    expect(seconds(turn, 1)).toBeLessThan(2.4);
    expect(seconds(turn.slice(clearAt), 1)).toBe(0);
    expect(seconds(turn.slice(clearAt), 3)).toBeCloseTo(0.2);
    expect(service.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /pay']);
    ws.close();
  });

  it('says the wait phrase, counted from the yes key, when the payment then takes a while', async () => {
    payMs = 2500; // over SPEECH_TOOL_WAIT_MS (2 s)
    const { ws, from } = await paying();
    await ws.waitFor((m) => m.type === 'audio' && Buffer.from(m.data, 'base64')[0] === 1, from);
    ws.send({ type: 'dtmf', digits: '1' });
    const pressed = performance.now();
    await until(() => speech.inputs().includes('One moment.'), 'the wait phrase', 10_000);
    expect(performance.now() - pressed).toBeGreaterThanOrEqual(1900);
    await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    expect(speech.inputs()).toEqual([PROMPT, 'One moment.', 'Done.']);
    ws.close();
  });

  it('starts the prompt over at the repeat key, then cuts it at the yes key', async () => {
    const { ws, from } = await paying();
    const prompt = (m: { type: string; data?: string }) =>
      m.type === 'audio' && Buffer.from(m.data!, 'base64')[0] === 1;
    await ws.waitFor(prompt, from);
    ws.send({ type: 'dtmf', digits: '*' });
    const cleared = ws.messages.indexOf(await ws.waitFor((m) => m.type === 'audio_clear', from));
    // Said again from its start: its audio comes again after the clear, then the yes key cuts it.
    await ws.waitFor(prompt, cleared);
    ws.send({ type: 'dtmf', digits: '1' });
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    await ws.waitFor((m) => m.type === 'audio_end', from);
    const turn = ws.messages.slice(from);
    expect(turn.filter((m) => m.type === 'tool_confirm')).toHaveLength(2);
    const clears = turn.flatMap((m, i) => (m.type === 'audio_clear' ? [i] : []));
    expect(clears).toHaveLength(2);
    expect(seconds(turn.slice(clears[0], clears[1]), 1)).toBeGreaterThan(0);
    expect(seconds(turn.slice(clears[1]), 1)).toBe(0);
    expect(service.requests).toHaveLength(1);
    ws.close();
  });

  it('says the whole prompt when it is answered once it has played, and drops nothing', async () => {
    const cuts = await questionsCounted('cut');
    const { ws, from } = await paying();
    await until(() => seconds(ws.messages.slice(from), 1) >= 3, 'the whole prompt', 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1200)); // played, SPEECH_AUDIO_LEAD_MS on
    ws.send({ type: 'dtmf', digits: '2' });
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    await ws.waitFor((m) => m.type === 'audio_end', from);
    expect(ws.messages.slice(from).some((m) => m.type === 'audio_clear')).toBe(false);
    expect(await questionsCounted('cut')).toBe(cuts);
    expect(service.requests).toHaveLength(0); // declined
    ws.close();
  });

  it('clears what Twilio still had of the prompt when the caller presses 1', async () => {
    const call = await TwilioCall.dial(rig.engine.wsUrl.replace(/\/ws$/, '/twilio'), {});
    enqueuePayment();
    speech.seconds = 3;
    call.speak(Buffer.concat([SPEECH, quiet(1000)]));
    await until(() => call.heard() > 0, 'the prompt', 10_000);
    speech.seconds = 0.2;
    expect(call.got.some((f) => f.event === 'clear')).toBe(false);
    call.send({
      event: 'dtmf',
      streamSid: 'MZ0001',
      sequenceNumber: '9',
      dtmf: { track: 'inbound_track', digit: '1' },
    });
    await until(() => call.got.some((f) => f.event === 'clear'), 'a clear');
    const clearAt = call.got.findIndex((f) => f.event === 'clear');
    // Of the prompt's 3 s (24 000 bytes of 8 kHz μ-law), about a second went before the clear;
    // after it, the answer's 0.2 s.
    expect(call.heard() - call.heard(clearAt)).toBeLessThan(19_200);
    await until(() => call.heard(clearAt) >= 1500, 'the answer', 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(call.heard(clearAt)).toBeLessThanOrEqual(1700); // not a 0.2 s chunk of the prompt more
    expect(service.requests.map((r) => r.path)).toEqual(['/pay']);
    call.socket.close();
  });
});
