import { sseText } from './support/fake-llm.js';
import { samples } from './support/prometheus.js';
import { audio, useSpeechRig } from './support/speech-rig.js';
import { voiceSession, WsClient } from './support/ws-client.js';

const MARKUP = /<\/?(tool_call|function|parameter|think)|<(function|parameter)=/;

describe('voice turns with OpenAI-compatible TTS and STT servers', () => {
  const rig = useSpeechRig();
  const { llm, speech, ttsInputs } = rig;

  it('never synthesises tool markup or reasoning: each synthesis gets a clean sentence', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    const xml =
      '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>';
    llm.enqueue(
      sseText(['<think>call the tool</think>Let me ', 'check. ', xml.slice(0, 15), xml.slice(15)]),
      sseText(['It is **sunny** ☀️. ', 'See https://wttr.in now.']),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Weather in Paris?' });
    await ws.waitFor((m) => m.type === 'audio_end', from, 10000);
    expect(ttsInputs()).toEqual(['Let me check.', 'It is sunny.', 'See now.']);
    for (const input of ttsInputs()) expect(input).not.toMatch(MARKUP);
    const msgs = ws.messages.slice(from);
    expect(audio(msgs).length).toBe(3);
    expect(msgs.at(-1)).toEqual({ type: 'audio_end' });
    ws.close();
  });

  it('sends raw binary audio frames when the session asks for them', async () => {
    const ws = await voiceSession(rig.engine.wsUrl, { audio: 'binary' });
    const frames: Buffer[] = [];
    ws.socket.on('message', (data, isBinary) => isBinary && frames.push(data as Buffer));
    llm.enqueue(sseText(['Hello.']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'hi' });
    await ws.waitFor((m) => m.type === 'audio_end', from);
    expect(Buffer.concat(frames).length).toBe(0.2 * 24000 * 2);
    ws.close();
  });

  it('synthesises nothing for a voice session that turned speech off (tts: false)', async () => {
    const ws = await voiceSession(rig.engine.wsUrl, { tts: false });
    llm.enqueue(sseText(['Hello ', 'there.']));
    const turn = await ws.turn('hi');
    expect(turn.at(-1)).toEqual({ type: 'assistant_end', text: 'Hello there.' });
    await new Promise((r) => setTimeout(r, 300)); // a synthesis would have been asked for by now
    expect(ws.messages.filter((m) => m.type.startsWith('audio'))).toEqual([]);
    expect(ttsInputs()).toEqual([]);
    ws.close();
  });

  it('barge-in: interrupt stops audio within one chunk and history keeps only what was heard', async () => {
    rig.secondsFor = (input) => (input.startsWith('One') ? 0.2 : 2);
    const ws = await voiceSession(rig.engine.wsUrl);
    llm.enqueue({
      kind: 'sse',
      pieces: sseText(['One. ', 'Two is long. ', 'Three is long too.']).pieces,
    });
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Count' });
    await ws.waitFor((m) => m.type === 'audio' && m.seq === 1, from, 5000);
    ws.send({ type: 'interrupt' });
    const interruptAt = ws.messages.length;
    await ws.waitFor((m) => m.type === 'audio_end', from);
    expect(
      await ws.waitFor((m) => m.type === 'assistant_end' && m.interrupted === true, from),
    ).toEqual({
      type: 'assistant_end',
      text: 'One.',
      interrupted: true,
      heard: true,
    });
    expect(audio(ws.messages.slice(interruptAt)).length).toBeLessThanOrEqual(1);
    llm.enqueue(sseText(['Ok.']));
    await ws.turn('stop');
    expect(llm.requests[1]!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Count' },
      { role: 'assistant', content: 'One.' },
      { role: 'user', content: 'stop' },
    ]);
    ws.close();
  });

  it('transcribes an utterance sent as binary and base64 frames, then answers it', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    llm.enqueue(sseText(['Sunny.']));
    ws.socket.send(Buffer.alloc(6400, 1), { binary: true });
    ws.send({ type: 'audio', data: Buffer.alloc(3200, 2).toString('base64') });
    const from = ws.messages.length;
    ws.send({ type: 'audio_end' });
    expect(await ws.waitFor((m) => m.type === 'transcript', from)).toEqual({
      type: 'transcript',
      text: 'What is the weather in Paris?',
    });
    await ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(llm.requests[0]!.body.messages.at(-1)).toEqual({
      role: 'user',
      content: 'What is the weather in Paris?',
    });
    const stt = speech.requests.find((r) => r.path === '/audio/transcriptions')!;
    expect(Buffer.byteLength(stt.body, 'latin1')).toBeGreaterThan(9600);
    expect(stt.headers.authorization).toBe('Bearer stt-secret');
    const form = await new Response(stt.body, {
      headers: { 'Content-Type': String(stt.headers['content-type']) },
    }).formData();
    expect({
      model: form.get('model'),
      language: form.get('language'),
      response_format: form.get('response_format'),
    }).toEqual({ model: 'large-v3', language: 'en', response_format: 'json' });
    const file = form.get('file') as File;
    expect(file.name).toBe('utterance.wav');
    expect((await file.text()).slice(0, 4)).toBe('RIFF');
    ws.close();
  });

  it("hints the session's language without its region, and reads a transcript given as plain text or padded", async () => {
    const ws = await voiceSession(rig.engine.wsUrl, { language: 'pt-BR' });
    const utterance = async () => {
      ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
      const from = ws.messages.length;
      ws.send({ type: 'audio_end' });
      return ws.waitFor((m) => m.type === 'transcript', from);
    };
    rig.heard = '  Qual é o tempo em Lisboa?\n';
    llm.enqueue(sseText(['Sol.']), sseText(['Sol.']));
    expect(await utterance()).toEqual({ type: 'transcript', text: 'Qual é o tempo em Lisboa?' });
    await ws.waitFor((m) => m.type === 'assistant_end');
    rig.plain = 'text/plain';
    expect(await utterance()).toEqual({ type: 'transcript', text: 'Qual é o tempo em Lisboa?' });
    await ws.waitFor((m) => m.type === 'assistant_end', ws.messages.length - 1);
    const forms = speech.requests.filter((r) => r.path === '/audio/transcriptions');
    expect(forms).toHaveLength(2);
    for (const r of forms) expect(r.body).toMatch(/name="language"\r\n\r\npt\r\n/);
    ws.close();
  });

  it('names each speech failure with its error code, and the session lives on', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    const utterance = async () => {
      ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
      const from = ws.messages.length;
      ws.send({ type: 'audio_end' });
      const error = await ws.waitFor((m) => m.type === 'error', from);
      // A failed transcription is answered aloud (SPEECH_UNCLEAR_PHRASE), heard out here.
      if (error.code === 'stt_failed') {
        const said = await ws.waitFor((m) => m.type === 'assistant_end' && !m.interrupted, from);
        expect(said.text).toBe("Sorry, I didn't catch that.");
        await ws.waitFor((m) => m.type === 'audio_end', ws.messages.indexOf(said));
      }
      return error;
    };
    rig.heard = '';
    expect(await utterance()).toEqual({
      type: 'error',
      code: 'no_speech',
      message: 'no speech was recognised in the utterance',
    });
    rig.heard = null;
    expect(await utterance()).toEqual({
      type: 'error',
      code: 'stt_failed',
      message: 'speech-to-text server answered HTTP 500: recogniser crashed',
    });
    // A proxy's page is no transcript: it would start a turn with it as the user's words.
    [rig.heard, rig.plain] = ['<html>\n<body>Sign in</body>\n</html>', 'text/html; charset=utf-8'];
    expect(await utterance()).toEqual({
      type: 'error',
      code: 'stt_failed',
      message:
        'speech-to-text server answered text/html, not a transcription: <html> <body>Sign in</body> </html>',
    });
    rig.plain = false;
    expect(llm.requests).toHaveLength(0); // no turn for an utterance not understood
    rig.ttsDown = true;
    llm.enqueue(sseText(['Hello there.']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'hi' });
    expect(await ws.waitFor((m) => m.type === 'error', from)).toMatchObject({
      type: 'error',
      code: 'tts_failed',
    });
    await ws.waitFor((m) => m.type === 'audio_end', from);
    // (After the end of what the last apology's playback was cut to, as the user spoke over it.)
    expect(await ws.waitFor((m) => m.type === 'assistant_end' && !m.heard, from)).toEqual({
      type: 'assistant_end',
      text: 'Hello there.',
    });
    ws.close();
  });

  it('refuses an utterance longer than STT_MAX_SECONDS and bad audio frames', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    // 0.625 s, then 0.625 s more: past the second's limit, the whole utterance is dropped.
    ws.socket.send(Buffer.alloc(20000), { binary: true });
    ws.socket.send(Buffer.alloc(20000), { binary: true });
    expect(await ws.waitFor((m) => m.type === 'error')).toMatchObject({
      code: 'invalid_audio',
      message: expect.stringContaining('STT_MAX_SECONDS'),
    });
    const from = ws.messages.length;
    ws.send({ type: 'audio', data: 'not base64!' });
    expect(await ws.waitFor((m) => m.type === 'error', from)).toMatchObject({
      code: 'invalid_message',
      message: 'audio "data" is not valid base64',
    });
    const next = ws.messages.length;
    ws.send({ type: 'audio_end' });
    expect(await ws.waitFor((m) => m.type === 'error', next)).toMatchObject({
      code: 'invalid_audio',
      message: expect.stringContaining('audio_end without audio'),
    });
    const bad = ws.messages.length;
    ws.send({ type: 'session.update', modality: 'video' });
    expect(await ws.waitFor((m) => m.type === 'error', bad)).toMatchObject({
      code: 'invalid_message',
      message: '"modality" must be "voice" or "text"',
    });
    ws.close();
  });

  it('barge-in by voice: audio from the user cancels the agent speaking', async () => {
    // Long enough that no sentence is heard whole before the barge-in, even on a busy machine.
    rig.secondsFor = () => 30;
    const ws = await voiceSession(rig.engine.wsUrl);
    llm.enqueue(sseText(['A long sentence here. ', 'And another one.']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'talk' });
    await ws.waitFor((m) => m.type === 'audio', from, 5000);
    // The agent is speaking a text it has finished writing (a barge-in before its end would end
    // the text itself, interrupted, with what was shown): what was heard comes in a second end.
    await ws.waitFor((m) => m.type === 'assistant_end' && m.interrupted !== true, from);
    ws.socket.send(Buffer.alloc(320), { binary: true });
    expect(await ws.waitFor((m) => m.type === 'audio_end', from)).toEqual({ type: 'audio_end' });
    expect(
      await ws.waitFor((m) => m.type === 'assistant_end' && m.interrupted === true, from),
    ).toMatchObject({ text: '', heard: true });
    ws.close();
  });

  it('barge-in before the text has ended: the text ends as shown, then comes what was heard', async () => {
    rig.secondsFor = () => 30;
    const ws = await voiceSession(rig.engine.wsUrl);
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    llm.enqueue({ ...sseText(['A long sentence here. ', 'And another one.']), gate });
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'talk' });
    await ws.waitFor((m) => m.type === 'audio', from, 5000);
    ws.socket.send(Buffer.alloc(320), { binary: true });
    await ws.waitFor((m) => m.type === 'assistant_end' && m.heard === true, from);
    expect(ws.messages.slice(from).filter((m) => m.type === 'assistant_end')).toEqual([
      { type: 'assistant_end', text: 'A long sentence here. And another one.', interrupted: true },
      { type: 'assistant_end', text: '', interrupted: true, heard: true },
    ]);
    finish();
    ws.close();
  });

  it('times what a caller waits for: the answer’s first sound, transcription and synthesis', async () => {
    const scrape = async () => samples(await (await fetch(`${rig.engine.httpUrl}/metrics`)).text());
    const before = await scrape();
    const ws = await voiceSession(rig.engine.wsUrl);
    rig.delayMs = 150; // each transcription and each synthesis
    llm.enqueue(sseText(['Sunny in Paris.']));
    ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
    const from = ws.messages.length;
    ws.send({ type: 'audio_end' });
    await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    rig.ttsDown = true;
    llm.enqueue(sseText(['Hello.']));
    const next = ws.messages.length;
    ws.send({ type: 'user_text', text: 'hi' });
    await ws.waitFor((m) => m.type === 'audio_end', next, 10_000);
    const after = await scrape();
    const grew = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    // One answer was heard: its first sound came after the transcription and a synthesis.
    expect(grew('agent_engine_voice_response_seconds_count')).toBe(1);
    expect(grew('agent_engine_voice_response_seconds_sum')).toBeGreaterThanOrEqual(0.3);
    expect(grew('agent_engine_stt_duration_seconds_count{provider="openai"}')).toBe(1);
    expect(grew('agent_engine_stt_duration_seconds_sum{provider="openai"}')).toBeGreaterThanOrEqual(
      0.15,
    );
    expect(grew('agent_engine_tts_first_audio_seconds_count{provider="openai"}')).toBe(1);
    const requests = (labels: string) => grew(`agent_engine_speech_requests_total{${labels}}`);
    expect(requests('kind="stt",provider="openai",outcome="ok"')).toBe(1);
    expect(requests('kind="tts",provider="openai",outcome="ok"')).toBe(1);
    expect(requests('kind="tts",provider="openai",outcome="failed"')).toBe(1);
    ws.close();
  });
});
