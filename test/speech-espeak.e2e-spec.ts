import { Engine } from './support/engine.js';
import { FakeLlm, sseText } from './support/fake-llm.js';
import { voiceSession, WsClient, type Msg } from './support/ws-client.js';

const audio = (msgs: Msg[]) => msgs.filter((m) => m.type === 'audio');

describe('voice turns with the embedded eSpeak NG engine', () => {
  const llm = new FakeLlm();
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      TTS_PROVIDER: 'espeak',
      SPEECH_AUDIO_LEAD_MS: '600000',
    });
  });
  afterAll(async () => {
    await engine?.stop();
    await llm.stop();
  });

  it('echoes settings and streams ordered audio events, then audio_end', async () => {
    const ws = await voiceSession(engine.wsUrl, { language: 'it' });
    expect(ws.messages.find((m) => m.type === 'session.updated')).toEqual({
      type: 'session.updated',
      settings: {
        modality: 'voice',
        tts: true,
        voice: '',
        language: 'it',
        timezone: 'UTC',
        audio: 'json',
        vad_silence_ms: 0,
        vad_unfinished_wait_ms: 2000,
        idle_secs: 0,
        max_secs: null,
        channel: 'websocket',
        input_audio_format: 'pcm16',
        output_audio_format: 'pcm16',
        instructions: '',
        model: null,
        tools: null,
        client_tools: [],
        variables: {},
      },
      audio_format: { format: 'pcm_s16le', sample_rate: 22050, channels: 1 },
      agent: null,
    });
    llm.enqueue(sseText(['Ciao! ', 'Oggi a Roma ', "c'è il sole."]));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Che tempo fa?' });
    await ws.waitFor((m) => m.type === 'audio_end', from, 15000);
    const msgs = ws.messages.slice(from);
    const chunks = audio(msgs);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((c) => c.seq)).toEqual(chunks.map((_c, i) => i));
    expect(chunks[0]).toMatchObject({ format: 'pcm_s16le', sample_rate: 22050, channels: 1 });
    const bytes = chunks.reduce((n, c) => n + Buffer.from(c.data, 'base64').length, 0);
    expect(bytes / 2 / 22050).toBeGreaterThan(1);
    expect(msgs.at(-1)!.type).toBe('audio_end');
    expect(msgs.some((m) => m.type === 'assistant_end')).toBe(true);
    ws.close();
  });

  it('sends no audio to a text session', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    llm.enqueue(sseText(['Just text.']));
    const msgs = await ws.turn('hi');
    await new Promise((r) => setTimeout(r, 300));
    expect(ws.messages.filter((m) => m.type === 'audio' || m.type === 'audio_end')).toEqual([]);
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Just text.' });
    ws.close();
  });
});
