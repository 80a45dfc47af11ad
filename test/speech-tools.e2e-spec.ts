import { readFileSync } from 'node:fs';
import { Engine } from './support/engine.js';
import { FakeLlm, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { xmlCall } from './support/turn-harness.js';
import { synthesised, until } from './support/waiting.js';
import { voiceSession, type WsClient } from './support/ws-client.js';

/** A spoken sentence, PCM s16le 16 kHz mono (test/fixtures/audio/make-speech.mjs). */
const SPEECH = readFileSync('test/fixtures/audio/speech-16k.pcm');

/** What a caller hears while tools run (SPEECH_TOOL_WAIT_MS, SPEECH_TOOL_WAIT_PHRASE). */
describe('speech while tools run', () => {
  const llm = new FakeLlm();
  const server = new RecordingServer();
  let engine: Engine;
  /** The slow tool answers once the test opens this gate (a new one per test). */
  let gate: Promise<void>;
  let release: () => void;
  /** What the fake speech-to-text server hears. */
  let heard = '';

  beforeAll(async () => {
    const base = await server.start();
    server.respond((req, res) => {
      if (req.path === '/audio/speech')
        return void res.writeHead(200, { 'Content-Type': 'audio/pcm' }).end(Buffer.alloc(4800, 7));
      if (req.path === '/audio/transcriptions')
        return void res.end(JSON.stringify({ text: heard }));
      void gate.then(() => res.end('sole'));
    });
    engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        { name: 'meteo', url: `${base}/meteo/{city}`, method: 'GET' },
        {
          name: 'orders',
          url: `${base}/orders`,
          method: 'GET',
          // Language codes in any case (`IT`, `pt-BR`).
          wait_phrase: { en: 'Let me look up your order.', IT: 'Cerco il suo ordine.' },
        },
        { name: 'book_room', url: `${base}/rooms`, method: 'POST', background: true },
      ]),
      TTS_PROVIDER: 'openai',
      TTS_BASE_URL: base,
      STT_BASE_URL: base,
      SPEECH_AUDIO_LEAD_MS: '0',
      SPEECH_TOOL_WAIT_MS: '100',
    });
  });
  afterAll(async () => {
    await engine?.stop();
    await llm.stop();
    await server.stop();
  });
  beforeEach(() => {
    gate = new Promise((open) => (release = open));
    llm.reset();
    server.requests.length = 0;
  });

  const spoken = () => synthesised(server);
  it("says the wait phrase in the session's language while a slow tool keeps it silent", async () => {
    const ws = await voiceSession(engine.wsUrl, { language: 'it' });
    llm.enqueue(sseText([xmlCall('meteo', { city: 'Roma' })]), sseText(['Sole a Roma.']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Che tempo fa a Roma?' });
    await until(() => spoken().includes('Un momento.'), 'speech');
    expect(ws.messages.slice(from).some((m) => m.type === 'tool_result')).toBe(false);
    release();
    await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    expect(spoken()).toEqual(['Un momento.', 'Sole a Roma.']);
    expect(ws.messages.find((m) => m.type === 'assistant_end')).toEqual({
      type: 'assistant_end',
      text: 'Sole a Roma.',
    });
    ws.close();
  });

  it('says the text before a call at once, and then no wait phrase', async () => {
    const ws = await voiceSession(engine.wsUrl, { language: 'en' });
    llm.enqueue(sseText(['Let me check', xmlCall('meteo', { city: 'Rome' })]), sseText(['Sunny.']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Weather in Rome?' });
    await until(() => spoken().includes('Let me check'), 'speech');
    await new Promise((r) => setTimeout(r, 300)); // past SPEECH_TOOL_WAIT_MS
    release();
    await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    expect(spoken()).toEqual(['Let me check', 'Sunny.']);
    ws.close();
  });

  it('says no wait phrase for a call run in the background, and speaks its result in a turn of its own', async () => {
    const ws = await voiceSession(engine.wsUrl, { language: 'en' });
    llm.enqueue(
      sseText([xmlCall('book_room', {})]),
      sseText(['I have asked the hotel.']),
      sseText(['Your room is booked.']),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Book me a room.' });
    const first = await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    await new Promise((r) => setTimeout(r, 300)); // past SPEECH_TOOL_WAIT_MS
    expect(spoken()).toEqual(['I have asked the hotel.']);
    release();
    await ws.waitFor((m) => m.type === 'audio_end', ws.messages.indexOf(first) + 1, 10_000);
    expect(spoken()).toEqual(['I have asked the hotel.', 'Your room is booked.']);
    expect(ws.messages.filter((m) => m.type === 'assistant_end').map((m) => m.text)).toEqual([
      'I have asked the hotel.',
      'Your room is booked.',
    ]);
    ws.close();
  });

  it("says a tool's own wait phrase in the session's language, else the general one", async () => {
    for (const [language, expected] of [
      ['it', 'Cerco il suo ordine.'],
      ['en', 'Let me look up your order.'],
      ['fr', 'Un instant.'], // the tool has no French phrase: SPEECH_TOOL_WAIT_PHRASE's
    ]) {
      gate = new Promise((open) => (release = open));
      server.requests.length = 0;
      const ws = await voiceSession(engine.wsUrl, { language: language! });
      llm.enqueue(sseText([xmlCall('orders', {})]), sseText(['Done.']));
      const from = ws.messages.length;
      ws.send({ type: 'user_text', text: 'Where is my order?' });
      await until(() => spoken().length > 0, 'speech');
      release();
      await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
      expect(spoken()).toEqual([expected, 'Done.']);
      ws.close();
    }
  });

  const meteo = () => server.requests.filter((r) => r.path === '/meteo/Rome');
  /**
   * The caller says `words` while the slow tool runs, on a line whose utterances the engine hears
   * end (voice activity detection); the model's next answer is `next`. `midway`, if given, runs
   * once half the words are said. Returns where the turn's messages and the transcript begin.
   */
  async function sayWhileCalling(
    words: string,
    next: string,
    midway?: (ws: WsClient, from: number) => Promise<void>,
  ) {
    const ws = await voiceSession(engine.wsUrl, { language: 'en', vad_silence_ms: 300 });
    llm.enqueue(sseText([xmlCall('meteo', { city: 'Rome' })]), sseText([next]));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Weather in Rome?' });
    // (The wait phrase, said in earlier tests, may come from the engine's cache: not asked for.)
    await until(() => meteo().length === 1, 'the call');
    heard = words;
    const audio = Buffer.concat([SPEECH, Buffer.alloc(600 * 32)]);
    const half = midway ? SPEECH.length / 2 - ((SPEECH.length / 2) % 640) : 0;
    const send = (start: number, end: number) => {
      for (let at = start; at < end; at += 640)
        ws.socket.send(audio.subarray(at, at + 640), { binary: true });
    };
    send(0, half);
    await midway?.(ws, from);
    send(half, audio.length);
    const transcript = await ws.waitFor((m) => m.type === 'transcript', from, 10_000);
    // No barge-in: a client keeps playing what the agent says.
    expect(ws.messages.slice(from).find((m) => m.type === 'speech_started')).toEqual({
      type: 'speech_started',
      heard_out: true,
    });
    expect(transcript).toEqual({ type: 'transcript', text: words, heard_out: true });
    return { ws, from, transcript: ws.messages.indexOf(transcript) };
  }

  it('hears out an "okay, thanks" said while a tool runs: the call goes on, and no turn starts', async () => {
    const { ws, from } = await sayWhileCalling('Okay, thanks.', 'Sunny.');
    release();
    const end = await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(end).toEqual({ type: 'assistant_end', text: 'Sunny.' });
    expect(ws.messages.slice(from).some((m) => m.interrupted)).toBe(false);
    expect(meteo()).toHaveLength(1);
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[1]!.body.messages.filter((m: any) => m.role === 'user')).toEqual([
      { role: 'user', content: 'Weather in Rome?' },
    ]);
    const metrics = await (await fetch(`${engine.httpUrl}/metrics`)).text();
    expect(metrics).toMatch(/^agent_engine_user_asides_total\{kind="acknowledged"\} 1$/m);
    ws.close();
  });

  it('says it is still there to a "hello?" while the tool runs, and the call goes on', async () => {
    const { ws, from } = await sayWhileCalling('Hello? Are you still there?', 'Sunny.');
    const told = await ws.waitFor((m) => m.type === 'tool_still_running', from);
    const call = ws.messages.slice(from).find((m) => m.type === 'tool_call');
    expect(told).toEqual({ type: 'tool_still_running', ids: [call!.id] });
    await until(() => spoken().includes("I'm still here, one moment."), 'the answer to it');
    release();
    const end = await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(end).toEqual({ type: 'assistant_end', text: 'Sunny.' });
    expect(meteo()).toHaveLength(1);
    expect(llm.requests).toHaveLength(2);
    const metrics = await (await fetch(`${engine.httpUrl}/metrics`)).text();
    expect(metrics).toMatch(/^agent_engine_user_asides_total\{kind="checked"\} 1$/m);
    ws.close();
  });

  /**
   * The caller begins `words` while the slow tool runs and is still speaking when it answers: the
   * model's answer `next` streams meanwhile. Returns where the tool's result and the transcript
   * came.
   */
  async function speakingWhenDone(words: string, next: string) {
    let result = -1;
    const said = await sayWhileCalling(words, next, async (ws, from) => {
      await ws.waitFor((m) => m.type === 'speech_started', from);
      // The caller goes on speaking meanwhile, their line streaming audio as it comes.
      let at = 0;
      const talking = setInterval(() => {
        ws.socket.send(SPEECH.subarray(at, at + 640), { binary: true });
        at = (at + 640) % 32_000; // the sentence's first second, all of it speech
      }, 20);
      try {
        // Past SPEECH_TOOL_WAIT_MS: the wait phrase is due while the caller speaks.
        await new Promise((r) => setTimeout(r, 300));
        release();
        await ws.waitFor((m) => m.type === 'assistant_delta' && m.text === next, from);
        await new Promise((r) => setTimeout(r, 400));
      } finally {
        clearInterval(talking);
      }
      result = ws.messages.findIndex((m, i) => i >= from && m.type === 'tool_result');
      // The answer's words reach the client as text; its speech waits for the caller.
      expect(ws.messages.slice(result).filter((m) => m.type === 'audio')).toEqual([]);
    });
    return { ...said, result };
  }

  it('says nothing over a caller heard out when the tool ends, and answers once they said "okay"', async () => {
    const { ws, from, result, transcript } = await speakingWhenDone('Okay.', 'Sunny.');
    const end = await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(end).toEqual({ type: 'assistant_end', text: 'Sunny.' });
    await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    const audio = ws.messages.map((m, i) => (m.type === 'audio' && i > result ? i : -1));
    // The answer alone ("Sunny.", 4800 bytes of audio): no "One moment." before it, said late.
    const after = ws.messages.filter((m, i) => m.type === 'audio' && i > transcript);
    expect(after.reduce((n, m) => n + Buffer.from(m.data, 'base64').length, 0)).toBe(4800);
    expect(audio.filter((i) => i > result && i < transcript)).toEqual([]);
    expect(llm.requests).toHaveLength(2);
    ws.close();
  });

  it('says none of the answer to a caller heard out who says more, and keeps none of it heard', async () => {
    const { ws, from, result } = await speakingWhenDone('Make it Milan instead.', 'Sunny.');
    llm.enqueue(sseText(['Milan then.']));
    await ws.waitFor((m) => m.type === 'assistant_end' && m.text === 'Milan then.', from, 10_000);
    const ends = ws.messages.slice(from).filter((m) => m.type === 'assistant_end');
    // The answer's text had ended: its speech, cut before a word, tells the client none was heard.
    expect(ends).toEqual([
      { type: 'assistant_end', text: 'Sunny.' },
      { type: 'assistant_end', text: '', interrupted: true, heard: true },
      { type: 'assistant_end', text: 'Milan then.' },
    ]);
    const cut = ws.messages.indexOf(ends[1]!);
    expect(ws.messages.slice(result, cut).filter((m) => m.type === 'audio')).toEqual([]);
    // The model has the tool's result, and no answer the caller did not hear.
    expect(llm.requests.at(-1)!.body.messages.slice(-3)).toEqual([
      expect.objectContaining({ role: 'assistant', content: null }),
      expect.objectContaining({ role: 'tool', content: 'sole' }),
      { role: 'user', content: 'Make it Milan instead.' },
    ]);
    ws.close();
  });

  it('says the answer a moment later when audio heard out stops coming without an end', async () => {
    // No voice activity detection: the client ends an utterance with audio_end, and sends none.
    const ws = await voiceSession(engine.wsUrl, { language: 'en' });
    llm.enqueue(sseText([xmlCall('meteo', { city: 'Rome' })]), sseText(['Sunny.']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Weather in Rome?' });
    await until(() => meteo().length === 1, 'the call');
    for (let at = 0; at < 6400; at += 640)
      ws.socket.send(SPEECH.subarray(at, at + 640), { binary: true });
    ws.send({ type: 'ping' });
    await ws.waitFor((m) => m.type === 'pong', from); // the audio is in
    release();
    await ws.waitFor((m) => m.type === 'audio_end', from, 5000);
    const result = ws.messages.findIndex((m, i) => i >= from && m.type === 'tool_result');
    expect(ws.messages.slice(result).filter((m) => m.type === 'audio').length).toBeGreaterThan(0);
    expect(ws.messages.slice(from).some((m) => m.interrupted)).toBe(false);
    ws.close();
  });

  it('cuts the call short for more than an okay, once it is heard', async () => {
    const { ws, from } = await sayWhileCalling('Make it Milan instead.', 'Milan then.');
    await ws.waitFor((m) => m.type === 'assistant_end' && m.text === 'Milan then.', from, 10_000);
    expect(ws.messages.slice(from).find((m) => m.type === 'assistant_end')).toEqual({
      type: 'assistant_end',
      text: '',
      interrupted: true,
    });
    expect(llm.requests.at(-1)!.body.messages.slice(-2)).toEqual([
      expect.objectContaining({ role: 'tool', content: 'Error: cancelled' }),
      { role: 'user', content: 'Make it Milan instead.' },
    ]);
    release();
    ws.close();
  });
});
