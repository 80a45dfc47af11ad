import { sseText } from './support/fake-llm.js';
import { samples } from './support/prometheus.js';
import { FakeSpeech, SPEECH, useVoiceRig } from './support/speech-server.js';
import type { WsClient } from './support/ws-client.js';
import { voiceSession } from './support/ws-client.js';

/**
 * Says the fixture's sentence, transcribed as `words`, then pauses long enough for
 * VAD_SILENCE_MS to end the utterance; resolves to its `transcript` event.
 */
async function say(ws: WsClient, speech: FakeSpeech, words: string) {
  speech.transcript = words;
  const from = ws.messages.length;
  const audio = Buffer.concat([SPEECH, Buffer.alloc(700 * 32)]);
  for (let at = 0; at < audio.length; at += 640)
    ws.socket.send(audio.subarray(at, at + 640), { binary: true });
  return { from, transcript: await ws.waitFor((m) => m.type === 'transcript', from, 10_000) };
}

/**
 * VAD_UNFINISHED_WAIT_MS: a caller who pauses mid-sentence ("I'd like a table for…") is not
 * answered at once: the engine waits for them to go on, and answers both parts as one turn.
 */
describe('words that sound unfinished (VAD_UNFINISHED_WAIT_MS)', () => {
  const rig = useVoiceRig({ VAD_SILENCE_MS: '500', VAD_UNFINISHED_WAIT_MS: '1500' });
  const { llm, speech } = rig;
  const userSaid = () => llm.requests.map((r) => r.body.messages.at(-1).content as string);
  /** `agent_engine_unfinished_utterances_total` of `outcome`. */
  const held = async (outcome: string) => {
    const scrape = samples(await (await fetch(`${rig.engine.httpUrl}/metrics`)).text());
    return scrape.get(`agent_engine_unfinished_utterances_total{outcome="${outcome}"}`) ?? 0;
  };
  let ws: WsClient;
  beforeEach(async () => {
    ws = await voiceSession(rig.engine.wsUrl);
  });
  afterEach(() => ws.close());

  it('waits for a caller who pauses mid-sentence, and answers the whole sentence in one turn', async () => {
    llm.enqueue(sseText(['A table for four at eight.']));
    const before = await held('continued');
    const first = await say(ws, speech, "I'd like to book a table for");
    expect(first.transcript).toEqual({
      type: 'transcript',
      text: "I'd like to book a table for",
      unfinished: true,
    });
    const { from, transcript } = await say(ws, speech, 'four people tonight.');
    expect(transcript).toEqual({ type: 'transcript', text: 'four people tonight.' });
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(userSaid()).toEqual(["I'd like to book a table for four people tonight."]);
    expect((await held('continued')) - before).toBe(1);
  });

  it('answers the words as they are when the caller says no more', async () => {
    llm.enqueue(sseText(['Go on, I am listening.']));
    const before = await held('answered');
    const { from } = await say(ws, speech, 'My account number is, um');
    await new Promise((r) => setTimeout(r, 500));
    expect(llm.requests).toHaveLength(0);
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(userSaid()).toEqual(['My account number is, um']);
    expect((await held('answered')) - before).toBe(1);
  });

  it('answers a finished sentence at once', async () => {
    llm.enqueue(sseText(['Sunny.']));
    const { from, transcript } = await say(ws, speech, 'What is the weather like in Paris?');
    expect(transcript).toEqual({ type: 'transcript', text: 'What is the weather like in Paris?' });
    await ws.waitFor((m) => m.type === 'assistant_delta', from, 1200);
  });

  it('takes the keys the caller presses after unfinished words as the rest of their turn', async () => {
    llm.enqueue(sseText(['Thank you.']));
    const { from } = await say(ws, speech, 'My account number is...');
    // Past VAD_UNFINISHED_WAIT_MS in all: the entry's time is waited for too.
    for (const digits of ['4', '7', '1', '1'])
      await new Promise((r) => setTimeout(() => r(ws.send({ type: 'dtmf', digits })), 400));
    ws.send({ type: 'dtmf', digits: '#' });
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(userSaid()).toEqual(['My account number is... DTMF: 4711#']);
  });

  it('takes typed words after unfinished ones as the rest of the turn', async () => {
    llm.enqueue(sseText(['Booked.']));
    const { from } = await say(ws, speech, 'Book me a room in the centre of');
    ws.send({ type: 'user_text', text: 'Milan.' });
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(userSaid()).toEqual(['Book me a room in the centre of Milan.']);
  });

  it('answers unfinished words at once in a session that sets vad_unfinished_wait_ms to 0', async () => {
    expect(ws.messages.at(-1)!.settings.vad_unfinished_wait_ms).toBe(1500);
    const bad = ws.messages.length;
    ws.send({ type: 'session.update', vad_unfinished_wait_ms: -1 });
    expect(await ws.waitFor((m) => m.type === 'error', bad)).toMatchObject({
      code: 'invalid_message',
      message: expect.stringContaining(
        '"vad_unfinished_wait_ms" must be a whole number of milliseconds from 0',
      ),
    });
    const updated = ws.messages.length;
    ws.send({ type: 'session.update', vad_unfinished_wait_ms: 0 });
    await ws.waitFor((m) => m.type === 'session.updated', updated);
    llm.enqueue(sseText(['For how many?']));
    const { from, transcript } = await say(ws, speech, "I'd like to book a table for");
    expect(transcript).toEqual({ type: 'transcript', text: "I'd like to book a table for" });
    await ws.waitFor((m) => m.type === 'assistant_delta', from, 1200);
  });

  it('answers words held after what the client had the agent say meanwhile, not over it', async () => {
    speech.seconds = 3; // the notice is long enough for the wait to end while it is said
    llm.enqueue(sseText(['Go on.']));
    const { from } = await say(ws, speech, 'I would like, um');
    ws.send({ type: 'say', text: 'This call is recorded.' });
    const ends = () => ws.messages.slice(from).filter((m) => m.type === 'assistant_end');
    await ws.waitFor((m) => m.type === 'assistant_end' && m.text === 'Go on.', from, 10_000);
    expect(ends()).toEqual([
      { type: 'assistant_end', text: 'This call is recorded.' },
      { type: 'assistant_end', text: 'Go on.' },
    ]);
    expect(userSaid()).toEqual(['I would like, um']);
  });

  it('answers at once when the client ends the utterance (audio_end)', async () => {
    const updated = ws.messages.length;
    ws.send({ type: 'session.update', vad_silence_ms: 0 });
    await ws.waitFor((m) => m.type === 'session.updated', updated);
    llm.enqueue(sseText(['For how many?']));
    speech.transcript = "I'd like to book a table for";
    const from = ws.messages.length;
    ws.socket.send(SPEECH, { binary: true });
    ws.send({ type: 'audio_end' });
    expect(await ws.waitFor((m) => m.type === 'transcript', from, 10_000)).toEqual({
      type: 'transcript',
      text: "I'd like to book a table for",
    });
    await ws.waitFor((m) => m.type === 'assistant_delta', from, 1200);
  });
});
