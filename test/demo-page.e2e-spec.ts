import type { Page } from 'playwright-core';
import { useDemoPage } from './support/demo-rig.js';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { TcpRelay } from './support/tcp-relay.js';

/**
 * `GET /demo`, the page that talks to the agent, in a real browser (headless Chromium): what a
 * user trying the engine sees, typing (its microphone and speech: demo-page-voice.e2e-spec.ts).
 */
describe('the demo page', () => {
  const rig = useDemoPage();
  const { llm, weather, opened, texts } = rig;

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
    // Where the answer's time went, under it.
    await page.locator('#log .timing').waitFor();
    expect(await texts(page, 'timing')).toEqual([
      expect.stringMatching(
        /^model's first token \d+ ms · tools \d+ ms · first text \d+ ms · in all \d+ ms$/,
      ),
    ]);
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

  it('says when the model got a call wrong, which was not run', async () => {
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'get_weather', arguments: {} }]),
      sseText(['Which city?']),
    );
    const page = await opened();
    await page.fill('#text:enabled', 'Weather?');
    await page.press('#text', 'Enter');
    await page.locator('#log .assistant', { hasText: 'Which city?' }).waitFor();
    expect(await texts(page, 'tool')).toEqual([
      '→ get_weather({}) ✗ not run: the model got it wrong (invalid arguments)',
    ]);
    expect(weather.requests).toEqual([]);
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
    rig.release();
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
    const relay = new TcpRelay(Number(new URL(rig.engine.httpUrl).port));
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
});
