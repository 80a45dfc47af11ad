import type { TurnEvent } from '../orchestrator/protocol/server-events.js';
import { drivenTurn } from '../../test/support/recording-tts.js';

/**
 * A voice turn driven event by event, with SPEECH_TOOL_WAIT_MS=100 (or `toolWaitMs`),
 * SPEECH_TOOL_STILL_MS `toolStillMs` (0: never), SPEECH_THINKING_WAIT_MS `answerWaitMs` from
 * `since` (0: never) and fake timers.
 */
function voiceTurn(toolWaitMs = 100, toolStillMs = 0, answerWaitMs = 0, since?: number) {
  const t = drivenTurn({
    toolWaitMs,
    toolWaitPhrase: 'One moment.',
    toolStillMs,
    toolStillPhrase: 'Still on it.',
    answerWaitMs,
    ...(since !== undefined && { since }),
  });
  const call = (id: string): TurnEvent => ({ type: 'tool_call', id, name: 'f', arguments: {} });
  const result = (id: string): TurnEvent => ({
    type: 'tool_result',
    id,
    name: 'f',
    ok: true,
    ms: 1,
  });
  return { ...t, call, result };
}

describe('speech while tools run', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('says the wait phrase once when calls keep a silent turn waiting, and not as the answer', async () => {
    const t = voiceTurn();
    t.send(t.call('a'));
    t.send(t.call('b'));
    await jest.advanceTimersByTimeAsync(99);
    expect(t.tts.texts).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    t.send(t.result('a'));
    t.send(t.call('c'));
    await jest.advanceTimersByTimeAsync(500);
    t.send(t.result('b'));
    t.send(t.result('c'));
    t.send({ type: 'assistant_delta', text: 'Sunny.' });
    await t.end();
    expect(t.tts.texts).toEqual(['One moment.', 'Sunny.']);
    expect(t.spoken).toEqual(['Sunny.']); // history after a barge-in holds only the answer
  });

  it('says nothing when the calls end in time, or when the model already spoke', async () => {
    const quick = voiceTurn();
    quick.send(quick.call('a'));
    await jest.advanceTimersByTimeAsync(50);
    quick.send(quick.result('a'));
    await jest.advanceTimersByTimeAsync(500);
    await quick.end();
    expect(quick.tts.texts).toEqual([]);

    const spoke = voiceTurn();
    // Text before a call is said at the call, not held until a sentence ends after the tools.
    spoke.send({ type: 'assistant_delta', text: 'Let me check' });
    spoke.send(spoke.call('a'));
    await jest.advanceTimersByTimeAsync(1);
    expect(spoke.tts.texts).toEqual(['Let me check']);
    await jest.advanceTimersByTimeAsync(500);
    await spoke.end();
    expect(spoke.tts.texts).toEqual(['Let me check']);
  });

  it('says the wait phrase once when nothing of the answer comes in time (SPEECH_THINKING_WAIT_MS)', async () => {
    const t = voiceTurn(100, 0, 300);
    await jest.advanceTimersByTimeAsync(299);
    expect(t.tts.texts).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(t.tts.texts).toEqual(['One moment.']);
    // The model then calls a tool that runs for long: no second phrase.
    t.send(t.call('a'));
    await jest.advanceTimersByTimeAsync(500);
    t.send(t.result('a'));
    t.send({ type: 'assistant_delta', text: 'Sunny.' });
    await t.end();
    expect(t.tts.texts).toEqual(['One moment.', 'Sunny.']);
    expect(t.spoken).toEqual(['Sunny.']);
  });

  it("times the model's silence from the user's last word, and stops at its first event", async () => {
    const late = voiceTurn(100, 0, 300, performance.now() - 250);
    await jest.advanceTimersByTimeAsync(50);
    expect(late.tts.texts).toEqual(['One moment.']);
    await late.end();

    const answered = voiceTurn(100, 0, 300);
    await jest.advanceTimersByTimeAsync(200);
    answered.send({ type: 'assistant_delta', text: 'Sunny.' });
    await jest.advanceTimersByTimeAsync(1000);
    await answered.end();
    expect(answered.tts.texts).toEqual(['Sunny.']);

    // A call is timed by SPEECH_TOOL_WAIT_MS from when it was made.
    const called = voiceTurn(200, 0, 300);
    await jest.advanceTimersByTimeAsync(250);
    called.send(called.call('a'));
    await jest.advanceTimersByTimeAsync(199);
    expect(called.tts.texts).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(called.tts.texts).toEqual(['One moment.']);
    await called.end();
  });

  it('says no wait phrase at all with SPEECH_TOOL_WAIT_MS=0', async () => {
    const t = voiceTurn(0);
    t.send(t.call('a'));
    await jest.advanceTimersByTimeAsync(5000);
    t.send(t.result('a'));
    await t.end();
    expect(t.tts.texts).toEqual([]);
  });

  it('counts the wait from the call still running: one that ended in time does not start it', async () => {
    const t = voiceTurn();
    t.send(t.call('a'));
    await jest.advanceTimersByTimeAsync(50);
    t.send(t.result('a'));
    await jest.advanceTimersByTimeAsync(10);
    t.send(t.call('b'));
    await jest.advanceTimersByTimeAsync(90); // 150 ms into the turn, 90 into b
    expect(t.tts.texts).toEqual([]);
    await jest.advanceTimersByTimeAsync(10);
    expect(t.tts.texts).toEqual(['One moment.']);
    await t.end();
  });

  it('goes on counting while any call runs: the first of two to end does not stop the wait', async () => {
    const t = voiceTurn();
    t.send(t.call('a'));
    t.send(t.call('b'));
    await jest.advanceTimersByTimeAsync(50);
    t.send(t.result('a'));
    await jest.advanceTimersByTimeAsync(50);
    expect(t.tts.texts).toEqual(['One moment.']);
    t.send(t.result('b'));
    await t.end();
  });

  it('says the text the model wrote after its calls instead of the wait phrase, once the wait is long', async () => {
    const t = voiceTurn();
    t.send(t.call('a'));
    // A whole sentence, held as the segmenter cannot yet know it ended ("now." or "now.5"?).
    t.send({ type: 'assistant_delta', text: 'Checking your order now.' });
    await jest.advanceTimersByTimeAsync(99);
    expect(t.tts.texts).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(t.tts.texts).toEqual(['Checking your order now.']);
    await jest.advanceTimersByTimeAsync(500);
    t.send(t.result('a'));
    t.send({ type: 'assistant_delta', text: 'It shipped.' });
    await t.end();
    expect(t.tts.texts).toEqual(['Checking your order now.', 'It shipped.']);
    expect(t.spoken).toEqual(['Checking your order now.', 'It shipped.']);
  });

  it("says a call's confirmation question, and no wait phrase while the user is asked", async () => {
    const t = voiceTurn();
    t.send({ type: 'assistant_delta', text: 'I will delete it' });
    t.send(t.call('a'));
    t.send({ type: 'tool_confirm', id: 'a', name: 'f', arguments: {}, prompt: 'Delete it?' });
    await jest.advanceTimersByTimeAsync(1000);
    await t.end();
    expect(t.tts.texts).toEqual(['I will delete it', 'Delete it?']);
    expect(t.spoken).toEqual(['I will delete it']); // the question is not the answer's text

    const silent = voiceTurn();
    silent.send(silent.call('a'));
    silent.send({ type: 'tool_confirm', id: 'a', name: 'f', arguments: {} });
    await jest.advanceTimersByTimeAsync(1000);
    await silent.end();
    expect(silent.tts.texts).toEqual([]);
  });

  it('says the wait phrase once the user approved a call that then runs long, counted from the answer', async () => {
    const t = voiceTurn();
    t.send({ type: 'assistant_delta', text: 'I will delete it' });
    t.send(t.call('a'));
    t.send({ type: 'tool_confirm', id: 'a', name: 'f', arguments: {}, prompt: 'Delete it?' });
    await jest.advanceTimersByTimeAsync(1000);
    t.answer('a');
    await jest.advanceTimersByTimeAsync(99);
    expect(t.tts.texts).toEqual(['I will delete it', 'Delete it?']);
    await jest.advanceTimersByTimeAsync(1);
    expect(t.tts.texts).toEqual(['I will delete it', 'Delete it?', 'One moment.']);
    t.send(t.result('a'));
    t.send({ type: 'assistant_delta', text: 'Deleted.' });
    await t.end();
    expect(t.spoken).toEqual(['I will delete it', 'Deleted.']);
  });

  it('says nothing of the wait after an answer while another call still waits for the user, or when the result comes in time', async () => {
    const t = voiceTurn();
    t.send(t.call('a'));
    t.send(t.call('b'));
    t.send({ type: 'tool_confirm', id: 'a', name: 'f', arguments: {}, prompt: 'Delete a?' });
    await jest.advanceTimersByTimeAsync(50);
    t.answer('a');
    t.send({ type: 'tool_confirm', id: 'b', name: 'f', arguments: {}, prompt: 'Delete b?' });
    await jest.advanceTimersByTimeAsync(1000);
    expect(t.tts.texts).toEqual(['Delete a?', 'Delete b?']);
    t.answer('b');
    await jest.advanceTimersByTimeAsync(50);
    t.send(t.result('a'));
    t.send(t.result('b'));
    await jest.advanceTimersByTimeAsync(1000);
    await t.end();
    expect(t.tts.texts).toEqual(['Delete a?', 'Delete b?']);
  });
});

describe('speech while tools run long (SPEECH_TOOL_STILL_MS)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('says the still phrase each time the calls have run that much longer, and not once they end', async () => {
    const t = voiceTurn(100, 1000);
    t.send(t.call('a'));
    await jest.advanceTimersByTimeAsync(999);
    expect(t.tts.texts).toEqual(['One moment.']);
    await jest.advanceTimersByTimeAsync(1);
    expect(t.tts.texts).toEqual(['One moment.', 'Still on it.']);
    await jest.advanceTimersByTimeAsync(1000);
    expect(t.tts.texts).toEqual(['One moment.', 'Still on it.', 'Still on it.']);
    t.send(t.result('a'));
    await jest.advanceTimersByTimeAsync(5000);
    t.send({ type: 'assistant_delta', text: 'Booked.' });
    await t.end();
    expect(t.tts.texts).toEqual(['One moment.', 'Still on it.', 'Still on it.', 'Booked.']);
    expect(t.spoken).toEqual(['Booked.']);
  });

  it('counts from the calls of each round, and says nothing while a call awaits the user', async () => {
    const t = voiceTurn(0, 1000);
    t.send(t.call('a'));
    await jest.advanceTimersByTimeAsync(600);
    t.send(t.result('a'));
    t.send(t.call('b'));
    await jest.advanceTimersByTimeAsync(600);
    expect(t.tts.texts).toEqual([]);
    await jest.advanceTimersByTimeAsync(400);
    expect(t.tts.texts).toEqual(['Still on it.']);
    t.send({ type: 'tool_confirm', id: 'b', name: 'f', arguments: {}, prompt: 'Go on?' });
    await jest.advanceTimersByTimeAsync(5000);
    expect(t.tts.texts).toEqual(['Still on it.', 'Go on?']);
    // Approved, it runs on: the still phrase again, a whole SPEECH_TOOL_STILL_MS after the answer.
    t.answer('b');
    await jest.advanceTimersByTimeAsync(999);
    expect(t.tts.texts).toEqual(['Still on it.', 'Go on?']);
    await jest.advanceTimersByTimeAsync(1);
    await t.end();
    expect(t.tts.texts).toEqual(['Still on it.', 'Go on?', 'Still on it.']);
  });
});
