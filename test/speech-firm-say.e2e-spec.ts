import { sseText } from './support/fake-llm.js';
import { soundOver, useVoiceRig } from './support/speech-server.js';
import { voiceSession, type Msg, type WsClient } from './support/ws-client.js';

const NOTICE = 'This call is recorded for quality and training purposes.';

/**
 * `say` with `"interruptible": false`: a notice the caller must hear whole. Their voice and keys
 * do not cut it; what they say meanwhile is answered once it is over.
 */
describe('a say the user may not cut', () => {
  const rig = useVoiceRig({
    VAD_SILENCE_MS: '300',
    SPEECH_AUDIO_LEAD_MS: '300',
    DTMF_TIMEOUT_MS: '200',
  });
  const { llm, speech } = rig;

  /** Says the notice (2 s of speech) and waits until its audio has begun. */
  async function notice(ws: WsClient, interruptible?: boolean): Promise<number> {
    speech.seconds = 2;
    const from = ws.messages.length;
    ws.send({ type: 'say', text: NOTICE, ...(interruptible !== undefined && { interruptible }) });
    await ws.waitFor((m) => m.type === 'audio', from);
    return from;
  }

  /** The turn's audio frames, from `from` to its `audio_end`. */
  const audioOf = (ws: WsClient, from: number): Msg[] => {
    const after = ws.messages.slice(from);
    return after
      .slice(
        0,
        after.findIndex((m) => m.type === 'audio_end'),
      )
      .filter((m) => m.type === 'audio');
  };

  it("goes on over the caller's voice, and then answers what they said", async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    const from = await notice(ws, false);
    let noticeOverAtRequest = false;
    llm.enqueue(() => {
      noticeOverAtRequest = ws.messages.slice(from).some((m) => m.type === 'audio_end');
      return sseText(['I can help with that.']);
    });
    speech.transcript = 'I want to change my booking.';
    soundOver(ws);
    const started = await ws.waitFor((m) => m.type === 'speech_started', from);
    expect(started).toEqual({ type: 'speech_started', heard_out: true });
    const answer = await ws.waitFor(
      (m) => m.type === 'assistant_end' && m.text === 'I can help with that.',
      from,
      10_000,
    );
    const events = ws.messages.slice(from, ws.messages.indexOf(answer));
    expect(events.filter((m) => m.type === 'assistant_end')).toEqual([
      { type: 'assistant_end', text: NOTICE },
    ]);
    // All of its 2 s of speech was sent, then the caller's words were answered.
    const seconds =
      audioOf(ws, from).reduce((n, m) => n + Buffer.from(m.data, 'base64').length, 0) / 48_000;
    expect(seconds).toBeCloseTo(2, 1);
    expect(noticeOverAtRequest).toBe(true);
    expect(llm.requests[0]!.body.messages.slice(1)).toEqual([
      { role: 'assistant', content: NOTICE },
      { role: 'user', content: 'I want to change my booking.' },
    ]);
    ws.close();
  });

  it('takes keys and typed text after it too, and still stops at an interrupt', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    for (const [input, read] of [
      [{ type: 'dtmf', digits: '1#' }, 'DTMF: 1#'],
      [{ type: 'user_text', text: 'Hello?' }, 'Hello?'],
    ] as const) {
      llm.reset();
      const from = await notice(ws, false);
      llm.enqueue(sseText(['Noted.']));
      ws.send(input);
      await ws.waitFor((m) => m.type === 'assistant_end' && m.text === 'Noted.', from, 10_000);
      const ends = ws.messages.slice(from).filter((m) => m.type === 'assistant_end');
      expect(ends).toEqual([
        { type: 'assistant_end', text: NOTICE },
        { type: 'assistant_end', text: 'Noted.' },
      ]);
      expect(llm.requests[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: read });
      await ws.waitFor((m) => m.type === 'audio_end', ws.messages.indexOf(ends[1]!));
      await new Promise((resolve) => setTimeout(resolve, 500)); // played to its end
    }
    const from = await notice(ws, false);
    ws.send({ type: 'interrupt' });
    const cut = await ws.waitFor((m) => m.type === 'assistant_end' && m.interrupted, from);
    expect(cut).toMatchObject({ heard: true });
    ws.close();
  });

  it('begins what waited for it in the order it came, before what came after its end', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    llm.enqueue(sseText(['Noted.']), sseText(['Noted again.']));
    // The notice ends while a slow transcription holds the messages that came after it.
    speech.respond((req, res) => {
      if (req.path === '/audio/transcriptions')
        return void setTimeout(() => res.end(JSON.stringify({ text: '' })), 2500);
      res.writeHead(200, { 'Content-Type': 'audio/pcm' }).end(Buffer.alloc(48_000, 7));
    });
    try {
      const from = ws.messages.length;
      ws.send({ type: 'say', text: NOTICE, interruptible: false });
      await ws.waitFor((m) => m.type === 'audio', from);
      ws.send({ type: 'user_text', text: 'first' });
      soundOver(ws);
      ws.send({ type: 'user_text', text: 'then' });
      await ws.waitFor((m) => m.type === 'assistant_end' && /^Noted/.test(m.text), from, 10_000);
      // "first", cut by "then", is asked with it, in the order the user wrote them.
      expect(llm.requests.at(-1)!.body.messages.at(-1)).toEqual({
        role: 'user',
        content: 'first\n\nthen',
      });
    } finally {
      speech.respondAsSpeech();
    }
  });

  it('is cut by the voice as before without "interruptible": false', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    const from = await notice(ws);
    llm.enqueue(sseText(['Yes?']));
    soundOver(ws);
    expect(await ws.waitFor((m) => m.type === 'speech_started', from)).toEqual({
      type: 'speech_started',
    });
    const cut = await ws.waitFor((m) => m.type === 'assistant_end' && m.interrupted, from);
    expect(cut).toMatchObject({ heard: true });
    ws.close();
  });

  it('refuses an "interruptible" that is not true or false, and the connection goes on', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    const from = ws.messages.length;
    ws.send({ type: 'say', text: NOTICE, interruptible: 'no' });
    expect(await ws.waitFor((m) => m.type === 'error', from)).toEqual({
      type: 'error',
      code: 'invalid_message',
      message: expect.stringContaining('"interruptible" must be true or false'),
    });
    llm.enqueue(sseText(['Hi.']));
    expect((await ws.turn('Hello')).at(-1)).toEqual({ type: 'assistant_end', text: 'Hi.' });
    ws.close();
  });
});
