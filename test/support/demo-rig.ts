/**
 * The demo page's rig (test/demo-page*.e2e-spec.ts): the engine with a fake LLM, a speech
 * server, an HTTP tool server and an MCP server, and headless Chromium whose microphone plays a
 * recorded sentence; each test's pages are closed after it.
 */
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumHearing } from './browser.js';
import { Engine, openAiSpeech } from './engine.js';
import { FakeLlm } from './fake-llm.js';
import { RecordingServer } from './recording-server.js';
import { McpTestServer } from './mcp-server.js';
import { formTool } from './question-rig.js';
import { FakeSpeech } from './speech-server.js';
import { weatherTool, writeToolsFile } from './tools-file.js';

/** A spoken sentence, PCM s16le 16 kHz mono (test/fixtures/audio/make-speech.mjs). */
export const SPEECH = readFileSync('test/fixtures/audio/speech-16k.pcm');

export interface DemoRig {
  llm: FakeLlm;
  speech: FakeSpeech;
  /** The HTTP tools' server: `get_weather`, `book_table` (approved first), `send_note`, `read_page`. */
  weather: RecordingServer;
  engine: Engine;
  /** Lets the MCP tool `search_flights`, which told its progress, answer. */
  release: () => void;
  /** The page, from `base` (the engine's own URL by default), connected with `key`. */
  opened: (key?: string, base?: string, from?: Browser) => Promise<Page>;
  /** The texts of the log's lines of a kind (`user`, `assistant`, `tool`, `note`, `error`). */
  texts: (page: Page, kind: string) => Promise<string[]>;
}

/** The rig for a describe block: started before its tests, stopped after them. */
export function useDemoPage(): DemoRig {
  const llm = new FakeLlm();
  const speech = new FakeSpeech();
  const weather = new RecordingServer();
  let browser: Browser;
  const rig: DemoRig = {
    llm,
    speech,
    weather,
    engine: undefined as unknown as Engine,
    release: () => {},
    opened: async (key = 'ws-key', base = rig.engine.httpUrl, from = browser) => {
      const context = await from.newContext();
      contexts.push(context);
      const page = await context.newPage();
      await page.goto(`${base}/demo`);
      await page.fill('#key', key);
      await page.click('#connect');
      return page;
    },
    texts: (page, kind) => page.locator(`#log .${kind}`).allTextContents(),
  };
  /** An MCP tool that tells its progress, then answers once the test lets it. */
  const flights = new McpTestServer([
    {
      name: 'search_flights',
      answer: async (_args, { progress }) => {
        await progress!(2, 3, 'Checked Lufthansa');
        await new Promise<void>((r) => (rig.release = r));
        return { content: [{ type: 'text', text: '3 flights' }] };
      },
    },
    formTool('pick_seat', 'Which seat?', {
      seat: { type: 'string', enum: ['A', 'W'], enumNames: ['Aisle', 'Window'] },
    }),
    formTool('pick_extras', 'Any extras?', {
      extras: {
        type: 'array',
        items: {
          anyOf: [
            { const: 'bag', title: 'Extra bag' },
            { const: 'meal', title: 'Meal' },
            { const: 'wifi', title: 'Wi-Fi' },
          ],
        },
      },
    }),
  ]);

  beforeAll(async () => {
    weather.respond((req, res) => res.end(`${decodeURIComponent(req.path.slice(1))}: sunny +21°C`));
    const [llmUrl, speechUrl, weatherUrl, flightsUrl] = await Promise.all([
      llm.start(),
      speech.start(),
      weather.start(),
      flights.start(),
    ]);
    rig.engine = await Engine.start({
      LLM_BASE_URL: llmUrl,
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        weatherTool(weatherUrl),
        {
          ...weatherTool(weatherUrl),
          name: 'book_table',
          confirm: true,
          confirm_prompt: 'Book a table in {city}?',
        },
        { type: 'mcp', name: 'search_flights', url: flightsUrl },
        { type: 'mcp', name: 'pick_seat', url: flightsUrl },
        { type: 'mcp', name: 'pick_extras', url: flightsUrl },
        { type: 'handoff', name: 'to_billing', instructions: 'You are billing.' },
        { name: 'send_note', url: `${weatherUrl}/note`, method: 'POST' },
        { name: 'read_page', url: `${weatherUrl}/page`, method: 'GET', untrusted: true },
      ]),
      WS_API_KEY: 'ws-key',
      ...openAiSpeech(speechUrl),
    });
    // The microphone: a moment of silence, the sentence, then silence (played once).
    browser = await chromiumHearing(0.5, SPEECH, 3);
  }, 30000);

  afterAll(async () => {
    await browser?.close();
    await rig.engine?.stop();
    await Promise.all([llm.stop(), speech.stop(), weather.stop(), flights.stop()]);
  });

  beforeEach(() => {
    llm.reset();
    speech.requests.length = 0;
    weather.requests.length = 0;
  });

  /** Each test's browser contexts, closed after it (a page left open would go on listening). */
  const contexts: BrowserContext[] = [];
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });
  return rig;
}
