import { Engine, openAiSpeech } from './support/engine.js';
import { FakeLlm, sseText } from './support/fake-llm.js';
import { OtlpCollector } from './support/otlp-collector.js';
import { RecordingServer } from './support/recording-server.js';
import { until } from './support/waiting.js';
import { voiceSession } from './support/ws-client.js';

/**
 * How far apart two spans' times may be read for one moment (ms): the engine times a span with
 * `performance.now()` from the time origin (microseconds), the tracer one it starts itself with
 * `Date.now()` (whole milliseconds): a span started after another may read up to 1 ms earlier.
 */
const CLOCKS = 1;

/**
 * A spoken turn's trace: its transcription, its completions and each sentence's synthesis, so that
 * an operator sees where a caller's wait went.
 */
describe('spans of a spoken turn', () => {
  const llm = new FakeLlm();
  const speech = new RecordingServer();
  const collector = new OtlpCollector();
  let engine: Engine;
  beforeAll(async () => {
    const base = await speech.start();
    speech.respond((req, res) => {
      // Each answer takes a little while, as a real server's does.
      setTimeout(() => {
        if (req.path === '/audio/transcriptions')
          return void res.end(JSON.stringify({ text: 'What is the weather?' }));
        if (JSON.parse(req.body).input.includes('Second'))
          return void res.writeHead(500).end('voice unavailable');
        res.writeHead(200, { 'Content-Type': 'audio/pcm' }).end(Buffer.alloc(9600, 7));
      }, 30);
    });
    engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      ...openAiSpeech(base),
      SPEECH_AUDIO_LEAD_MS: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: await collector.start(),
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '20',
    });
  });
  afterAll(async () => {
    await engine?.stop();
    await Promise.all([llm.stop(), speech.stop(), collector.stop()]);
  });

  it('puts the transcription, the completion and each synthesis under the turn', async () => {
    const ws = await voiceSession(engine.wsUrl);
    llm.enqueue(sseText(['First sentence here. ', 'Second sentence here.']));
    ws.socket.send(Buffer.alloc(6400, 1), { binary: true });
    const from = ws.messages.length;
    ws.send({ type: 'audio_end' });
    await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    const spans = () => collector.spans();
    await until(
      () => spans().filter((s) => s.name === 'synthesize').length === 2,
      'both syntheses',
      10_000,
    );
    const turn = spans().find((s) => s.name === 'turn')!;
    const under = (name: string) =>
      spans().filter(
        (s) => s.name === name && s.traceId === turn.traceId && s.parentSpanId === turn.spanId,
      );

    const [transcribe] = under('transcribe');
    expect(transcribe).toMatchObject({ kind: 3, attributes: { 'engine.stt.provider': 'openai' } });
    // The turn begins with its transcription, which took the server's while.
    expect(transcribe!.start).toBeGreaterThanOrEqual(turn.start - CLOCKS);
    expect(transcribe!.end - transcribe!.start).toBeGreaterThanOrEqual(25);
    const [chat] = under('chat m');
    expect(chat!.start).toBeGreaterThanOrEqual(transcribe!.end - CLOCKS);

    const syntheses = under('synthesize').sort((a, b) => a.start - b.start);
    expect(syntheses.map((s) => s.attributes['engine.tts.characters'])).toEqual([
      'First sentence here.'.length,
      'Second sentence here.'.length,
    ]);
    expect(syntheses[0]!.attributes).toMatchObject({ 'engine.tts.provider': 'openai' });
    expect(syntheses[0]!.attributes['engine.tts.first_audio_ms']).toBeGreaterThanOrEqual(25);
    // The turn's response time, from the end of the user's speech to the answer's first audio:
    // across the transcription, the completion and the first sentence's first audio.
    const [respond] = under('respond');
    expect(respond!.start).toBeLessThanOrEqual(transcribe!.start + CLOCKS);
    expect(respond!.end).toBeGreaterThanOrEqual(syntheses[0]!.start - CLOCKS);
    expect(respond!.attributes['engine.voice.response_ms']).toBeGreaterThanOrEqual(
      transcribe!.end -
        transcribe!.start +
        (syntheses[0]!.attributes['engine.tts.first_audio_ms'] as number),
    );
    expect(syntheses[0]!.status.code ?? 0).toBe(0);
    expect(syntheses[1]).toMatchObject({
      status: { code: 2, message: 'speech synthesis failed' },
      attributes: { 'error.type': 'tts_failed' },
    });
    // Never the words said or heard.
    const exported = collector.requests.map((r) => r.body).join('\n');
    for (const words of ['weather', 'First sentence']) expect(exported).not.toContain(words);
    ws.close();
  });
});
