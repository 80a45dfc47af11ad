import { readFileSync } from 'node:fs';
import { sseText } from './support/fake-llm.js';
import { useVoiceRig } from './support/speech-server.js';
import { voiceSession, WsClient, type Msg } from './support/ws-client.js';

/** A spoken sentence (2.3 s), PCM s16le 16 kHz mono (test/fixtures/audio/make-speech.mjs). */
const SPEECH = readFileSync('test/fixtures/audio/speech-16k.pcm');

/** Streams `audio` as a microphone does, in real time: 20 ms frames, 20 ms apart. */
async function speakLive(ws: WsClient, audio: Buffer): Promise<void> {
  for (let at = 0; at < audio.length; at += 640) {
    ws.socket.send(audio.subarray(at, at + 640), { binary: true });
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const said = (messages: Msg[]) =>
  messages.filter((m) => m.type === 'assistant_end' && !m.heard).map((m) => m.text as string);

/**
 * USER_IDLE_SECS: a voice session's user silent after the agent's turn is asked whether they are
 * still there (USER_IDLE_PHRASE, USER_IDLE_PROMPTS times), then the session ends (close 4003), as
 * a phone call left open would otherwise hold its session, and its model, forever.
 */
describe('a user who has gone quiet (USER_IDLE_SECS)', () => {
  const rig = useVoiceRig({ USER_IDLE_SECS: '0.5', USER_IDLE_PROMPTS: '1' });
  const { llm, speech } = rig;

  it('asks once after the silence, then says goodbye and ends the session', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    const started = performance.now();
    ws.send({ type: 'say', text: 'Hello, how can I help?' });
    expect(await ws.closed).toBe(4003);
    expect(ws.socket.readyState).toBe(ws.socket.CLOSED);
    // The greeting (0.2 s of speech), 0.5 s of silence, the question, 0.5 s more, the goodbye.
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    const words = ['Hello, how can I help?', 'Are you still there?', "I'll hang up now. Goodbye!"];
    expect(said(ws.messages)).toEqual(words);
    // Synthesised a sentence at a time.
    expect(speech.inputs()).toEqual([...words.slice(0, 2), "I'll hang up now.", 'Goodbye!']);
    // The goodbye was given whole before the session closed.
    expect(ws.messages.at(-1)).toEqual({ type: 'audio_end' });
    expect(llm.requests).toHaveLength(0);
  });

  it("asks in the session's own words when it gave them (session.update's phrases)", async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    ws.send({
      type: 'session.update',
      phrases: { idle: 'Hello? Still with me?', idle_goodbye: { en: 'Bye for now.' } },
    });
    ws.send({ type: 'say', text: 'Hello, how can I help?' });
    expect(await ws.closed).toBe(4003);
    expect(said(ws.messages)).toEqual([
      'Hello, how can I help?',
      'Hello? Still with me?',
      'Bye for now.',
    ]);
  });

  it('asks afresh after the user answers, and the model reads the question', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    // Each sentence 1 s of speech: the engine sends it ahead of its playing and counts the
    // silence from when the client will have played it.
    speech.seconds = 1;
    llm.enqueue(sseText(['Good. What do you need?']));
    ws.send({ type: 'say', text: 'Hello.' });
    const asked = await ws.waitFor(
      (m) => m.type === 'assistant_end' && m.text === 'Are you still there?',
    );
    // Heard whole (said over, the model would read only what was heard of it): 0.9 s after its
    // audio_end is past a silence of 0.5 s counted from the turn's end, but within one counted
    // from its speech played (~1.5 s).
    await ws.waitFor((m) => m.type === 'audio_end', ws.messages.indexOf(asked));
    await new Promise((resolve) => setTimeout(resolve, 900));
    ws.send({ type: 'user_text', text: 'Yes, sorry.' });
    expect(await ws.closed).toBe(4003);
    expect(said(ws.messages)).toEqual([
      'Hello.',
      'Are you still there?',
      'Good. What do you need?',
      'Are you still there?',
      "I'll hang up now. Goodbye!",
    ]);
    expect(llm.requests[0]!.body.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Hello. Are you still there?' },
      { role: 'user', content: 'Yes, sorry.' },
    ]);
  });

  it('never asks while the user speaks, however long the utterance', async () => {
    const ws = await voiceSession(rig.engine.wsUrl, { vad_silence_ms: 300 });
    llm.enqueue(sseText(['Noted.']));
    ws.send({ type: 'say', text: 'Hello.' });
    await ws.waitFor((m) => m.type === 'audio_end');
    // The greeting's silence is broken within 0.5 s; the speech then lasts 2.3 s.
    await speakLive(ws, Buffer.concat([SPEECH, Buffer.alloc(400 * 32)]));
    const noted = await ws.waitFor((m) => m.type === 'assistant_end' && m.text === 'Noted.');
    // What came until the answer (the question 0.5 s after it may be here already, when the
    // test's process was held up past it).
    const until = ws.messages.slice(0, ws.messages.indexOf(noted) + 1);
    expect(said(until)).toEqual(['Hello.', 'Noted.']);
    expect(until.filter((m) => m.type === 'speech_started')).toHaveLength(1);
    ws.close();
  });

  it('goes on when the user speaks over the goodbye: they are there after all', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    llm.enqueue(sseText(['Sorry, go on.']));
    speech.seconds = 3; // a long goodbye, to speak over
    ws.send({ type: 'say', text: 'Hello.' });
    await ws.waitFor(
      (m) => m.type === 'assistant_end' && m.text === "I'll hang up now. Goodbye!",
      0,
      10_000,
    );
    ws.send({ type: 'user_text', text: 'Wait, I am here!' });
    const answer = await ws.waitFor(
      (m) => m.type === 'assistant_end' && m.text === 'Sorry, go on.',
    );
    expect(answer).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ws.closeCode).toBeUndefined();
    ws.close();
  });

  it('leaves text sessions, and a voice session with idle_secs 0, alone', async () => {
    const text = await WsClient.connect(rig.engine.wsUrl);
    text.send({ type: 'say', text: 'Hello.' });
    const voice = await voiceSession(rig.engine.wsUrl, { idle_secs: 0 });
    expect(voice.messages.at(-1)!.settings.idle_secs).toBe(0);
    voice.send({ type: 'say', text: 'Hello.' });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const ws of [text, voice]) {
      expect(said(ws.messages)).toEqual(['Hello.']);
      expect(ws.closeCode).toBeUndefined();
      ws.close();
    }
    const bad = await WsClient.connect(rig.engine.wsUrl);
    bad.send({ type: 'session.update', idle_secs: -1 });
    expect(await bad.waitFor((m) => m.type === 'error')).toMatchObject({
      message:
        '"idle_secs" must be a number of seconds from 0 (never asked whether the user is there) to 3600',
    });
    bad.close();
  });
});
