import { PAY_PROMPT as PROMPT, usePayRig } from './support/pay-rig.js';
import { until } from './support/waiting.js';

/**
 * SPEECH_QUESTION_REPEAT_MS: a caller who says nothing to a question hears it again, as an IVR's
 * menu repeats when no key comes, until they answer or ask it to wait.
 */
describe('a spoken question left unanswered', () => {
  const {
    rig,
    service,
    paying: asked,
    questionsCounted,
  } = usePayRig({
    SPEECH_QUESTION_REPEAT_MS: '700',
  });
  const { speech } = rig;
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
    // Speech only: the client was asked once.
    expect(ws.messages.slice(from).filter((m) => m.type === 'tool_confirm')).toHaveLength(1);
    ws.send({ type: 'user_text', text: 'Yes.' });
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    await pause(1500);
    expect(speech.inputs()).toEqual([PROMPT, PROMPT, PROMPT, 'Done.']);
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
});
