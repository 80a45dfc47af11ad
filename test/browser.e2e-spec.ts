import type { Browser, Page } from 'playwright-core';
import { launchChromium, converse, Site } from './support/browser.js';
import { Engine, openAiSpeech } from './support/engine.js';
import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { FakeSpeech } from './support/speech-server.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';

/**
 * A real browser (headless Chromium) as the engine's client, from pages of web sites on loopback:
 * the browser's own WebSocket (which sends the page's Origin, cannot set headers and gets binary
 * frames as ArrayBuffers), its CORS checks of an admin UI's calls, and Swagger UI at /docs.
 */
describe('a browser as the client', () => {
  const llm = new FakeLlm();
  const speech = new FakeSpeech();
  const weather = new RecordingServer();
  const app = new Site();
  const admin = new Site();
  const other = new Site();
  let engine: Engine;
  let browser: Browser;
  const pages: Page[] = [];
  const pageOf = async (site: Site) => {
    const page = await site.page(browser);
    pages.push(page);
    return page;
  };

  beforeAll(async () => {
    weather.respond((req, res) => res.end(`${decodeURIComponent(req.path.slice(1))}: sunny +21°C`));
    const [llmUrl, speechUrl, weatherUrl, appOrigin, adminOrigin] = await Promise.all([
      llm.start(),
      speech.start(),
      weather.start(),
      app.start(),
      admin.start(),
      other.start(),
    ]);
    engine = await Engine.start({
      LLM_BASE_URL: llmUrl,
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([weatherTool(weatherUrl)]),
      WS_API_KEY: 'ws-key',
      ADMIN_API_KEY: 'admin-key',
      WS_ALLOWED_ORIGINS: appOrigin,
      CORS_ORIGINS: adminOrigin,
      ...openAiSpeech(speechUrl),
    });
    browser = await launchChromium();
  }, 30000);

  afterAll(async () => {
    await browser?.close();
    await engine?.stop();
    await Promise.all([llm, speech, weather, app, admin, other].map((s) => s.stop()));
  });

  beforeEach(() => {
    llm.reset();
    weather.requests.length = 0;
    speech.requests.length = 0;
  });

  const wsUrl = (token = 'ws-key') => `${engine.wsUrl}?token=${token}`;

  it("holds a tool-calling turn over the page's WebSocket, the key in its URL; a bad frame only gets an error", async () => {
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }]),
      sseText(['It is sunny ', 'in Paris.']),
    );
    const seen = await converse(
      await pageOf(app),
      wsUrl(),
      [
        { raw: '{"type":"user_text",' },
        { type: 'ping', id: 'p1' },
        { type: 'user_text', text: 'Weather in Paris?' },
      ],
      'assistant_end',
    );
    const types = seen.events.map((e) => e.type);
    expect(types.slice(0, 5)).toEqual(['session', 'error', 'pong', 'tool_call', 'tool_result']);
    expect(seen.events[1]).toMatchObject({ code: 'invalid_message' });
    expect(seen.events[3]).toMatchObject({ name: 'get_weather', arguments: { city: 'Paris' } });
    expect(seen.events[4]).toMatchObject({ name: 'get_weather', ok: true });
    const deltas = seen.events.filter((e) => e.type === 'assistant_delta').map((e) => e.text);
    expect(seen.events.at(-1)).toMatchObject({
      type: 'assistant_end',
      text: 'It is sunny in Paris.',
    });
    expect(deltas.join('')).toBe('It is sunny in Paris.');
    expect(weather.requests.map((r) => r.path)).toEqual(['/Paris']);
    expect(llm.requests[1]!.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_1',
      content: 'Paris: sunny +21°C',
    });
  });

  it('keeps out the socket of a page of another site, and one without the key', async () => {
    const elsewhere = await converse(await pageOf(other), wsUrl(), [], 'session');
    const keyless = await converse(await pageOf(app), engine.wsUrl, [], 'session');
    const wrongKey = await converse(await pageOf(app), wsUrl('guess'), [], 'session');
    for (const refused of [elsewhere, keyless, wrongKey])
      expect(refused).toEqual({ opened: false, events: [], closed: 1006 });
    expect(llm.requests).toHaveLength(0);
  });

  it("answers a microphone's PCM, sent as binary frames, with its speech as binary frames", async () => {
    llm.enqueue(sseText(['Sunny, ', '21 degrees.']));
    const seen = await converse(
      await pageOf(app),
      wsUrl(),
      [
        {
          type: 'session.update',
          modality: 'voice',
          tts: true,
          audio: 'binary',
          vad_silence_ms: 0,
        },
        { pcmBytes: 6400 },
        { pcmBytes: 6400 },
        { type: 'audio_end' },
      ],
      'audio_end',
    );
    expect(seen.events.find((e) => e.type === 'transcript')).toEqual({
      type: 'transcript',
      text: speech.transcript,
    });
    const transcribed = speech.requests.find((r) => r.path === '/audio/transcriptions')!;
    // The two frames' 12800 bytes of PCM, as a WAV file inside the multipart form.
    expect(transcribed.bytes.length).toBeGreaterThan(12800);
    expect(transcribed.bytes.includes(Buffer.from('WAVE'))).toBe(true);
    expect(speech.inputs()).toEqual(['Sunny, 21 degrees.']);
    const { audio_format: format } = seen.events.find((e) => e.type === 'session.updated')!;
    const audio = seen.events.filter((e) => 'binary' in e).reduce((n, e) => n + e.binary, 0);
    // The speech server's 0.2 s, at the rate the session was told.
    expect(audio).toBe(Math.round(0.2 * format.sample_rate) * 2);
    expect(seen.events.filter((e) => e.type === 'audio')).toHaveLength(0);
  });
});
