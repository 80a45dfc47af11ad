import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumHearing } from './support/browser.js';
import { Engine, openAiSpeech } from './support/engine.js';
import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { McpTestServer } from './support/mcp-server.js';
import { formTool } from './support/question-rig.js';
import { FakeSpeech } from './support/speech-server.js';
import { TcpRelay } from './support/tcp-relay.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';

/** A spoken sentence, PCM s16le 16 kHz mono (test/fixtures/audio/make-speech.mjs). */
const SPEECH = readFileSync('test/fixtures/audio/speech-16k.pcm');

/**
 * `GET /demo`, the page that talks to the agent, in a real browser (headless Chromium) whose
 * microphone plays a recorded sentence: what a user trying the engine sees and hears.
 */
describe('the demo page', () => {
  const llm = new FakeLlm();
  const speech = new FakeSpeech();
  const weather = new RecordingServer();
  /** An MCP tool that tells its progress, then answers once the test lets it. */
  let release = () => {};
  const flights = new McpTestServer([
    {
      name: 'search_flights',
      answer: async (_args, { progress }) => {
        await progress!(2, 3, 'Checked Lufthansa');
        await new Promise<void>((r) => (release = r));
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
  let engine: Engine;
  let browser: Browser;

  beforeAll(async () => {
    weather.respond((req, res) => res.end(`${decodeURIComponent(req.path.slice(1))}: sunny +21°C`));
    const [llmUrl, speechUrl, weatherUrl, flightsUrl] = await Promise.all([
      llm.start(),
      speech.start(),
      weather.start(),
      flights.start(),
    ]);
    engine = await Engine.start({
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
    await engine?.stop();
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

  /** The page, from `base` (the engine's own URL by default), connected with `key`. */
  const opened = async (key = 'ws-key', base = engine.httpUrl, from = browser): Promise<Page> => {
    const context = await from.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${base}/demo`);
    await page.fill('#key', key);
    await page.click('#connect');
    return page;
  };
  const texts = (page: Page, kind: string) => page.locator(`#log .${kind}`).allTextContents();

  it('holds a typed conversation and shows the tool calls as they happen', async () => {
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }]),
      sseText(['It is sunny ', 'in Paris.']),
    );
    const page = await opened();
    await page.waitForSelector('#text:enabled');
    expect(await page.textContent('#status')).toMatch(/^connected \(session [0-9a-f]{8}\)$/);
    await page.fill('#text', 'Weather in Paris?');
    await page.press('#text', 'Enter');
    await page.locator('#log .tool', { hasText: '✓' }).waitFor();
    expect(await texts(page, 'user')).toEqual(['Weather in Paris?']);
    expect(await texts(page, 'tool')).toEqual([
      expect.stringMatching(/^→ get_weather\(\{"city":"Paris"\}\) ✓ \d+ ms$/),
    ]);
    await page.locator('#log .assistant', { hasText: /^It is sunny in Paris\.$/ }).waitFor();
    expect(weather.requests.map((r) => r.path)).toEqual(['/Paris']);
  });

  it('notes a handoff to another assistant', async () => {
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'to_billing', arguments: {} }]),
      sseText(['Billing here.']),
    );
    const page = await opened();
    await page.fill('#text:enabled', 'My invoice, please.');
    await page.press('#text', 'Enter');
    await page.locator('#log .assistant', { hasText: 'Billing here.' }).waitFor();
    expect(await texts(page, 'note')).toContain('(handed to billing)');
  });

  it('shows a call the model made again that was not run twice', async () => {
    const note = { name: 'send_note', arguments: { to: 'Ada' } };
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', ...note }]),
      sseStructuredCalls([{ id: 'call_2', ...note }]),
      sseText(['Sent.']),
    );
    const page = await opened();
    await page.fill('#text:enabled', 'Send Ada a note.');
    await page.press('#text', 'Enter');
    await page.locator('#log .assistant', { hasText: 'Sent.' }).waitFor();
    expect(await texts(page, 'tool')).toEqual([
      expect.stringMatching(/^→ send_note\(\{"to":"Ada"\}\) ✓ \d+ ms$/),
      '→ send_note({"to":"Ada"}) ✓ not run again (same call earlier)',
    ]);
    expect(weather.requests.map((r) => r.path)).toEqual(['/note']);
  });

  it('takes an entry on its keypad as the turn', async () => {
    llm.enqueue(sseText(['Account 42 found.']));
    const page = await opened();
    await page.locator('summary').click();
    for (const key of ['4', '2', '#']) await page.click(`#keys button:text-is("${key}"):enabled`);
    await page.locator('#log .assistant', { hasText: 'Account 42 found.' }).waitFor();
    expect(await texts(page, 'user')).toEqual(['keys: 42#']);
    expect(llm.requests[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'DTMF: 42#' });
  });

  it("asks the user's approval of a call, again when asked to, and runs it once given", async () => {
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'book_table', arguments: { city: 'Rome' } }]),
      sseText(['Booked.']),
    );
    const page = await opened();
    await page.waitForSelector('#text:enabled');
    const type = async (text: string) => {
      await page.fill('#text', text);
      await page.press('#text', 'Enter');
    };
    await type('Book me a table in Rome');
    const asked = page.locator('#log .note', { hasText: 'Book a table in Rome?' });
    await asked.first().waitFor();
    await type('One moment');
    await page.locator('#log .note', { hasText: '(the call waits)' }).waitFor();
    await type('Sorry?');
    // Asked again: the buttons are the latest asking's.
    await asked.nth(1).locator('button', { hasText: 'Yes' }).click();
    await page.locator('#log .assistant', { hasText: 'Booked.' }).waitFor();
    expect(await page.locator('#log .note button').count()).toBe(0);
    expect(await texts(page, 'tool')).toEqual([
      expect.stringMatching(/^→ book_table\(\{"city":"Rome"\}\) ✓ \d+ ms$/),
    ]);
    expect(weather.requests.map((r) => r.path)).toEqual(['/Rome']);
  });

  it('says why it asks to approve a call after the agent read something from outside', async () => {
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_p', name: 'read_page', arguments: {} }]),
      sseStructuredCalls([{ id: 'call_n', name: 'send_note', arguments: {} }]),
      sseText(['Not sent.']),
    );
    const page = await opened();
    await page.waitForSelector('#text:enabled');
    await page.fill('#text', 'What does the page say?');
    await page.press('#text', 'Enter');
    const asked = page.locator('#log .note', {
      hasText: 'Run send_note? (the agent read something from outside first)',
    });
    await asked.locator('button', { hasText: 'No' }).click();
    await page.locator('#log .assistant', { hasText: 'Not sent.' }).waitFor();
    expect(weather.requests.map((r) => r.path)).toEqual(['/page']);
  });

  it('shows how far a call that takes a while has got, then its result', async () => {
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'search_flights', arguments: {} }]),
      sseText(['Three flights.']),
    );
    const page = await opened();
    await page.waitForSelector('#text:enabled');
    await page.fill('#text', 'Flights to Rome?');
    await page.press('#text', 'Enter');
    await page.locator('#log .tool', { hasText: '… 2/3 Checked Lufthansa' }).waitFor();
    expect(await texts(page, 'tool')).toEqual(['→ search_flights({}) … 2/3 Checked Lufthansa']);
    release();
    await page.locator('#log .assistant', { hasText: 'Three flights.' }).waitFor();
    expect(await texts(page, 'tool')).toEqual([
      expect.stringMatching(/^→ search_flights\(\{\}\) ✓ \d+ ms$/),
    ]);
  });

  it("offers a question's choices as buttons: one to click, or toggles to tick", async () => {
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'pick_seat', arguments: {} }]),
      sseText(['Window it is.']),
      sseStructuredCalls([{ id: 'call_2', name: 'pick_extras', arguments: {} }]),
      sseText(['Added.']),
    );
    const page = await opened();
    await page.waitForSelector('#text:enabled');
    const ask = async (text: string, prompt: string) => {
      await page.fill('#text', text);
      await page.press('#text', 'Enter');
      const asked = page.locator('#log .note', { hasText: prompt });
      await asked.locator('button', { hasText: 'Skip' }).waitFor();
      return asked;
    };
    const read = () => JSON.parse(llm.requests.at(-1)!.body.messages.at(-1).content);
    const seat = await ask('Pick my seat', 'Which seat?');
    expect(await seat.locator('button').allTextContents()).toEqual(['Aisle', 'Window', 'Skip']);
    await seat.locator('button', { hasText: 'Window' }).click();
    await page.locator('#log .assistant', { hasText: 'Window it is.' }).waitFor();
    expect(await seat.locator('button').count()).toBe(0);
    expect(read()).toEqual({ action: 'accept', content: { seat: 'W' } });

    const extras = await ask('Add extras', 'Any extras?');
    const names = ['Extra bag', 'Meal', 'Wi-Fi', 'Done', 'Skip'];
    expect(await extras.locator('button').allTextContents()).toEqual(names);
    for (const pick of ['Extra bag', 'Meal', 'Wi-Fi', 'Meal'])
      await extras.locator('button', { hasText: pick }).click();
    const pressed = extras.locator('button[aria-pressed="true"]');
    expect(await pressed.allTextContents()).toEqual(['Extra bag', 'Wi-Fi']);
    await extras.locator('button', { hasText: 'Done' }).click();
    await page.locator('#log .assistant', { hasText: 'Added.' }).waitFor();
    expect(await extras.locator('button').count()).toBe(0);
    expect(read()).toEqual({ action: 'accept', content: { extras: ['bag', 'wifi'] } });
  });

  /** The user says who they are, and is greeted. */
  async function introduce(page: Page): Promise<void> {
    await page.waitForSelector('#text:enabled');
    llm.enqueue(sseText(['Hello Ada.']), sseText(['You are Ada.']));
    await page.fill('#text', 'I am Ada');
    await page.press('#text', 'Enter');
    await page.locator('#log .assistant', { hasText: 'Hello Ada.' }).waitFor();
  }
  /** The user asks who they are: the model read the conversation before (its second request). */
  async function askWhoAmI(page: Page): Promise<void> {
    await page.waitForSelector('#text:enabled');
    await page.fill('#text', 'Who am I?');
    await page.press('#text', 'Enter');
    await page.locator('#log .assistant', { hasText: 'You are Ada.' }).waitFor();
    const history = llm.requests[1]!.body.messages.map((m: { content: string }) => m.content);
    expect(history.slice(-3)).toEqual(['I am Ada', 'Hello Ada.', 'Who am I?']);
  }

  it('gets its session back when the connection is lost, and the conversation goes on', async () => {
    const relay = new TcpRelay(Number(new URL(engine.httpUrl).port));
    try {
      const page = await opened('ws-key', await relay.start());
      await introduce(page);
      relay.cut();
      await page.locator('#log .note', { hasText: 'reconnected' }).waitFor();
      await askWhoAmI(page);
    } finally {
      await relay.stop();
    }
  });

  it('shows the conversation again after a reload, and goes on with it', async () => {
    const page = await opened();
    await introduce(page);
    await page.reload();
    expect(await texts(page, 'user')).toEqual([]);
    await page.fill('#key', 'ws-key');
    await page.click('#connect');
    await page.locator('#log .note', { hasText: 'the conversation goes on' }).waitFor();
    expect(await texts(page, 'user')).toEqual(['I am Ada']);
    expect(await texts(page, 'assistant')).toEqual(['Hello Ada.']);
    await askWhoAmI(page);
  });

  it('says why it is not connected when the key is wrong', async () => {
    const page = await opened('guess');
    await page.locator('#status', { hasText: 'not connected' }).waitFor();
    expect(await page.textContent('#status')).toBe(
      'not connected (1006: refused, or the key is wrong)',
    );
    expect(await page.isDisabled('#text')).toBe(true);
  });

  it("streams the microphone, and plays the answer's speech", async () => {
    llm.enqueue(sseText(['Sunny, ', '21 degrees.']));
    const page = await opened();
    await page.check('#speak');
    await page.click('#mic:enabled');
    // The engine hears the sentence end, has it transcribed and answers it aloud.
    await page.waitForSelector('#log .user', { timeout: 15000 });
    expect(await texts(page, 'user')).toEqual([speech.transcript]);
    // The speech server's 0.2 s of speech, all of it played.
    await page.locator('#heard[data-seconds="0.20"]').waitFor({ state: 'attached' });
    expect(await page.textContent('#heard')).toBe("agent's speech: 0.2 s");
    expect(await texts(page, 'assistant')).toEqual(['Sunny, 21 degrees.']);
    expect(speech.inputs()).toEqual(['Sunny, 21 degrees.']);
    // What was transcribed: the sentence as the page sent it, 16 kHz PCM in a WAV file.
    const upload = speech.requests.find((r) => r.path === '/audio/transcriptions')!;
    const form = await new Response(upload.bytes, {
      headers: { 'Content-Type': String(upload.headers['content-type']) },
    }).formData();
    const seconds = ((form.get('file') as File).size - 44) / 32000;
    expect(seconds).toBeGreaterThan(SPEECH.length / 32000 - 0.5);
    expect(seconds).toBeLessThan(SPEECH.length / 32000 + 1.5);
    // The microphone stopped, and started again.
    await page.click('#mic');
    await page.locator('#mic', { hasText: 'Start the microphone' }).waitFor();
    await page.click('#mic');
    await page.locator('#mic', { hasText: 'Stop the microphone' }).waitFor();
    expect(await texts(page, 'error')).toEqual([]);
  });

  it('shows words the user left unfinished and their rest as one line, answered once', async () => {
    // A microphone that pauses for a second mid-sentence ("a table for… four people").
    const words = SPEECH.subarray(0, 32000);
    const pauser = await chromiumHearing(0.5, words, 1, words, 2);
    speech.transcripts.push("I'd like a table for", 'four people.');
    try {
      llm.enqueue(sseText(['A table for four.']));
      const page = await opened('ws-key', engine.httpUrl, pauser);
      await page.click('#mic:enabled');
      await page.locator('#log .assistant', { hasText: 'A table for four.' }).waitFor();
      expect(await texts(page, 'user')).toEqual(["I'd like a table for four people."]);
      expect(llm.requests.map((r) => r.body.messages.at(-1).content)).toEqual([
        "I'd like a table for four people.",
      ]);
    } finally {
      speech.transcripts.length = 0;
      await pauser.close();
    }
  }, 30000);

  it("stops the agent's speech when the user speaks over it, and answers what they said", async () => {
    // A microphone that speaks again while the answer's 4 s of speech play.
    const talker = await chromiumHearing(0.5, SPEECH, 2, SPEECH, 3);
    speech.seconds = 4;
    try {
      llm.enqueue(sseText(['Here is a long answer.']), sseText(['Yes?']));
      const page = await opened('ws-key', engine.httpUrl, talker);
      await page.check('#speak');
      await page.click('#mic:enabled');
      await page.locator('#log .note', { hasText: 'the agent stopped: you spoke' }).waitFor();
      await page.locator('#log .assistant', { hasText: 'Yes?' }).waitFor({ timeout: 15000 });
      expect(await texts(page, 'user')).toEqual([speech.transcript, speech.transcript]);
    } finally {
      speech.seconds = 0.2;
      await talker.close();
    }
  }, 30000);
});
