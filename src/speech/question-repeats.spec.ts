import { drivenTurn } from '../../test/support/recording-tts.js';

const call = { id: 'c1', name: 'pay', arguments: {} };
const PROMPT = 'Pay 120 euros? Press 1 to confirm.';

/** A voice turn asking approval of call c1, with SPEECH_QUESTION_REPEAT_MS `repeatMs`. */
function asking(repeatMs: number, questionRepeatPhrase?: string, questionRepeats = 3) {
  const t = drivenTurn({
    holdPhrase: 'Sure, take your time.',
    questionRepeatMs: repeatMs,
    questionRepeats,
    ...(questionRepeatPhrase !== undefined && { questionRepeatPhrase }),
  });
  t.send({ type: 'tool_call', ...call });
  t.send({ type: 'tool_confirm', ...call, prompt: PROMPT });
  const end = async () => {
    t.send({ type: 'tool_result', ...call, ok: true, ms: 1 });
    await t.end();
  };
  const prompts = () => t.tts.texts.filter((text) => text === PROMPT).length;
  return { ...t, end, prompts };
}

/**
 * The fake clock moved on by `ms`, 50 ms at a time: what a timer's callback starts (a sentence
 * sent, then its repeat timed) happens at its time, not once the clock has jumped to the end.
 */
async function tick(ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= 50) await jest.advanceTimersByTimeAsync(Math.min(50, left));
}

describe('a question left unanswered (SPEECH_QUESTION_REPEAT_MS)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('is said again each time the user has said nothing that long since it was heard, until answered', async () => {
    const t = asking(1000);
    await tick(900);
    expect(t.prompts()).toBe(1);
    await tick(300);
    expect(t.prompts()).toBe(2);
    await tick(1100);
    expect(t.prompts()).toBe(3);
    t.answer('c1');
    await tick(5000);
    await t.end();
    expect(t.prompts()).toBe(3);
  });

  it('is not said again once the user asked it to wait, nor with 0', async () => {
    const held = asking(1000);
    await tick(100);
    held.send({ type: 'tool_held', ids: ['c1'] });
    await tick(5000);
    await held.end();
    expect(held.tts.texts).toEqual([PROMPT, 'Sure, take your time.']);

    const never = asking(0);
    await tick(20_000);
    await never.end();
    expect(never.prompts()).toBe(1);
  });

  it('counts anew from a question asked again at the user’s asking', async () => {
    const t = asking(1000);
    await tick(600);
    t.send({ type: 'tool_confirm', ...call, prompt: PROMPT }); // "sorry?"
    await tick(900);
    expect(t.prompts()).toBe(2);
    await tick(300);
    expect(t.prompts()).toBe(3);
    await t.end();
  });

  it('is said again three times at most (SPEECH_QUESTION_REPEATS), then waits for the answer in silence', async () => {
    const t = asking(1000);
    await tick(20_000);
    expect(t.prompts()).toBe(1 + 3);
    // Asked again at the user's asking ("sorry?"): three more, at most.
    t.send({ type: 'tool_confirm', ...call, prompt: PROMPT });
    await tick(20_000);
    await t.end();
    expect(t.prompts()).toBe(1 + 3 + 1 + 3);

    // SPEECH_QUESTION_REPEATS: once; 0: never.
    const once = asking(1000, undefined, 1);
    await tick(20_000);
    await once.end();
    expect(once.prompts()).toBe(2);
    const never = asking(1000, undefined, 0);
    await tick(20_000);
    await never.end();
    expect(never.prompts()).toBe(1);
  });

  it('is said again after SPEECH_QUESTION_REPEAT_PHRASE, not when the user asked to hear it', async () => {
    const SORRY = "Sorry, I didn't hear an answer.";
    const t = asking(1000, SORRY);
    await tick(1100);
    expect(t.tts.texts).toEqual([PROMPT, SORRY, PROMPT]);
    t.send({ type: 'tool_confirm', ...call, prompt: PROMPT }); // "sorry?"
    await tick(100);
    expect(t.tts.texts).toEqual([PROMPT, SORRY, PROMPT, PROMPT]);
    await tick(1000);
    expect(t.tts.texts).toEqual([PROMPT, SORRY, PROMPT, PROMPT, SORRY, PROMPT]);
    t.answer('c1');
    await t.end();

    const alone = asking(1000, '');
    await tick(1100);
    await alone.end();
    expect(alone.tts.texts).toEqual([PROMPT, PROMPT]);
  });

  it('is said again in its own words, not after the apology an unclear answer had put before it', async () => {
    const SORRY = "Sorry, I didn't hear an answer.";
    const UNCLEAR = "Sorry, I didn't catch that.";
    const t = drivenTurn({
      questionRepeatMs: 1000,
      questionRepeatPhrase: SORRY,
      unclearPhrase: UNCLEAR,
    });
    const book = { id: 'c2', name: 'book', arguments: {} };
    t.send({ type: 'tool_call', ...book });
    const answer = { type: 'integer' as const, minimum: 1, maximum: 8 };
    t.send({ type: 'tool_question', ...book, prompt: 'How many guests?', answer, unclear: 'none' });
    await tick(1100);
    await t.end();
    expect(t.tts.texts).toEqual([
      `${UNCLEAR} How many guests? From 1 to 8.`,
      SORRY,
      'How many guests? From 1 to 8.',
    ]);
  });
});
