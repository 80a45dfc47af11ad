import { chromiumHearing } from './support/browser.js';
import { SPEECH, useDemoPage } from './support/demo-rig.js';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';

/**
 * The demo page in headless Chromium whose microphone plays a recorded sentence: what a user
 * trying the engine says and hears (typing: demo-page.e2e-spec.ts).
 */
describe('the demo page, spoken to', () => {
  const rig = useDemoPage();
  const { llm, speech, weather, opened, texts } = rig;

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
    // Where the answer's time went: transcription, the model, the first text and sound.
    await page.locator('#log .timing', { hasText: 'first audio' }).waitFor();
    expect(await texts(page, 'timing')).toEqual([
      expect.stringMatching(
        /^heard in \d+ ms · model's first token \d+ ms · first text \d+ ms · in all \d+ ms · first audio \d+ ms$/,
      ),
    ]);
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
      const page = await opened('ws-key', rig.engine.httpUrl, pauser);
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
      const page = await opened('ws-key', rig.engine.httpUrl, talker);
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

  it('stops saying a question the user answers with its button while it is said', async () => {
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'book_table', arguments: { city: 'Rome' } }]),
      sseText(['Booked.']),
    );
    speech.seconds = 4; // the question
    try {
      const page = await opened();
      // The page's sources of speech stopped before their end, counted (in the page).
      await page.evaluate(`{
        const { stop } = AudioBufferSourceNode.prototype;
        window.stopped = 0;
        AudioBufferSourceNode.prototype.stop = function (when) {
          window.stopped++;
          stop.call(this, when);
        };
      }`);
      const stopped = () => page.evaluate('window.stopped');
      await page.check('#speak');
      await page.waitForSelector('#text:enabled');
      await page.fill('#text', 'Book me a table in Rome');
      await page.press('#text', 'Enter');
      const asked = page.locator('#log .note', { hasText: 'Book a table in Rome?' });
      await asked.waitFor();
      await page.locator('#heard:not([data-seconds="0.00"])').waitFor({ state: 'attached' });
      speech.seconds = 0.2; // the answer
      expect(await stopped()).toBe(0);
      await asked.locator('button', { hasText: 'Yes' }).click();
      await page.locator('#log .assistant', { hasText: 'Booked.' }).waitFor();
      // The question's speech queued to play (a second sent ahead) was stopped.
      await page.waitForFunction('window.stopped > 0');
      expect(weather.requests.map((r) => r.path)).toEqual(['/Rome']);
      expect(await texts(page, 'note')).not.toContain('(the agent stopped: you spoke)');
    } finally {
      speech.seconds = 0.2;
    }
  });
});
