import { PAY_PROMPT as PROMPT, usePayRig } from './support/pay-rig.js';
import { until } from './support/waiting.js';

/**
 * SPEECH_QUESTION_REPEAT_MS: a caller who says nothing to a question hears it again, as an IVR's
 * menu repeats when no key comes, after SPEECH_QUESTION_REPEAT_PHRASE, until they answer or ask it
 * to wait.
 */
const SORRY = "Sorry, I didn't hear an answer.";

describe('a spoken question left unanswered', () => {
  const {
    rig,
    service,
    paying: asked,
    questionsCounted,
  } = usePayRig({
    SPEECH_QUESTION_REPEAT_MS: '700',
    SPEECH_QUESTION_REPEATS: '2',
  });
  const { speech } = rig;
  afterEach(() => speech.respondAsSpeech());
  const prompts = () => speech.inputs().filter((t) => t === PROMPT).length;

  async function paying() {
    const { ws, from } = await asked();
    await ws.waitFor((m) => m.type === 'tool_confirm', from);
    return { ws, from };
  }
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('is said again while the caller says nothing, and no more once answered', async () => {
    const { ws, from } = await paying();
    await until(() => prompts() === 3, 'the question said three times', 10_000);
    // Said again twice (SPEECH_QUESTION_REPEATS), then no more.
    await pause(2000);
    expect(prompts()).toBe(3);
    // Speech only: the client was asked once.
    expect(ws.messages.slice(from).filter((m) => m.type === 'tool_confirm')).toHaveLength(1);
    ws.send({ type: 'user_text', text: 'Yes.' });
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    await pause(1500);
    expect(speech.inputs()).toEqual([PROMPT, SORRY, PROMPT, SORRY, PROMPT, 'Done.']);
    expect(await questionsCounted('repeated')).toBe(2);
    expect(service.requests.map((r) => r.path)).toEqual(['/pay']);
    ws.close();
  });

  it('is not said again once the caller asked it to wait', async () => {
    const { ws, from } = await paying();
    ws.send({ type: 'user_text', text: 'One moment.' });
    await ws.waitFor((m) => m.type === 'tool_held', from);
    await pause(2000);
    expect(speech.inputs()).toEqual([PROMPT, 'Sure, take your time.']);
    ws.send({ type: 'dtmf', digits: '2' });
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(service.requests).toHaveLength(0);
    ws.close();
  });

  it('drops the words before it and the question when the caller answers during them', async () => {
    // The words before the question are 3 s of speech, each byte 2; the question 0.2 s, each
    // byte 1; the answer 0.2 s, each byte 3.
    speech.respond((req, res) => {
      const { input } = JSON.parse(req.body) as { input: string };
      const [seconds, mark] = input === SORRY ? [3, 2] : [0.2, input === PROMPT ? 1 : 3];
      res.writeHead(200, { 'Content-Type': 'audio/pcm' }).end(Buffer.alloc(seconds * 48_000, mark));
    });
    const cuts = await questionsCounted('cut');
    const { ws, from } = await paying();
    const marked = (mark: number) => (m: { type: string; data?: string }) =>
      m.type === 'audio' && Buffer.from(m.data!, 'base64')[0] === mark;
    await ws.waitFor(marked(2), from, 10_000);
    ws.send({ type: 'dtmf', digits: '1' });
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    await pause(500);
    const clear = ws.messages.findIndex((m, i) => i >= from && m.type === 'audio_clear');
    expect(clear).toBeGreaterThan(-1);
    const after = ws.messages.slice(clear);
    // Neither the words cut nor the question after them, but the answer.
    expect(after.filter(marked(2))).toEqual([]);
    expect(after.filter(marked(1))).toEqual([]);
    expect(after.filter(marked(3)).length).toBeGreaterThan(0);
    // (From the prompt on: the last test's "Done." may have been asked for after it ended.)
    const inputs = speech.inputs();
    expect(inputs.slice(inputs.indexOf(PROMPT))).toEqual([PROMPT, SORRY, PROMPT, 'Done.']);
    expect(service.requests.map((r) => r.path)).toEqual(['/pay']);
    expect(await questionsCounted('cut')).toBe(cuts + 1);
    ws.close();
  });
});
