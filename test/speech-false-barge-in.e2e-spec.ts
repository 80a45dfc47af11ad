import { sseText } from './support/fake-llm.js';
import { soundOver as sound, useVoiceRig } from './support/speech-server.js';
import { voiceSession, type WsClient } from './support/ws-client.js';

const ANSWER = ['Your order has shipped. ', 'It arrives on Monday. ', 'It comes by post.'];

/**
 * A barge-in whose utterance holds no words (its transcription is empty): the answer it cut goes
 * on from where it was cut, as if the sound had not been there.
 */
describe('a barge-in that holds no words', () => {
  const rig = useVoiceRig({ VAD_SILENCE_MS: '300', SPEECH_AUDIO_LEAD_MS: '300' });
  const { llm, speech } = rig;

  /**
   * The answer, cut by a sound 2.6 s into its speech (its second sentence playing: the sound is
   * heard well before that sentence ends, on a loaded machine too).
   */
  async function cutAnswer(ws: WsClient, transcript: string, next?: string) {
    speech.seconds = 2; // each sentence: 2 s of speech
    llm.enqueue(sseText(ANSWER), ...(next ? [sseText([next])] : []));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Where is my order?' });
    await ws.waitFor((m) => m.type === 'audio', from);
    const firstAudio = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 2600 - (performance.now() - firstAudio)));
    speech.transcript = transcript;
    sound(ws);
    const cut = await ws.waitFor((m) => m.type === 'assistant_end' && m.heard === true, from);
    expect(cut).toMatchObject({ text: 'Your order has shipped.', interrupted: true });
    speech.seconds = 0.1; // what is said from now on, said quickly
    await ws.waitFor((m) => m.type === 'transcript', from, 10_000);
    return from;
  }

  it('says the rest of the answer, and the history keeps it whole', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    const from = await cutAnswer(ws, '');
    const resumed = await ws.waitFor((m) => m.type === 'assistant_end' && m.resumed, from, 10_000);
    expect(resumed).toEqual({
      type: 'assistant_end',
      text: 'It arrives on Monday. It comes by post.',
      resumed: true,
    });
    expect(ws.messages.slice(from).find((m) => m.type === 'error')).toMatchObject({
      code: 'no_speech',
    });
    await ws.waitFor((m) => m.type === 'audio_end', ws.messages.indexOf(resumed), 10_000);
    expect(speech.inputs().slice(-2)).toEqual(['It arrives on Monday.', 'It comes by post.']);
    await new Promise((resolve) => setTimeout(resolve, 500)); // played to the end
    llm.enqueue(sseText(['Sure.']));
    await ws.turn('Cancel it.');
    const metrics = await (await fetch(`${rig.engine.httpUrl}/metrics`)).text();
    expect(metrics).toMatch(/^agent_engine_user_asides_total\{kind="noise"\} 1$/m);
    expect(llm.requests.at(-1)!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Where is my order?' },
      { role: 'assistant', content: ANSWER.join('') },
      { role: 'user', content: 'Cancel it.' },
    ]);
    ws.close();
  });

  it('goes on when the utterance only says "go on" ("mm-hmm"), and starts no turn', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    const from = await cutAnswer(ws, 'Mm-hmm.');
    const resumed = await ws.waitFor((m) => m.type === 'assistant_end' && m.resumed, from, 10_000);
    expect(resumed.text).toBe('It arrives on Monday. It comes by post.');
    expect(llm.requests).toHaveLength(1);
    ws.close();
  });

  it('says nothing more of an answer the client interrupted, whatever is heard next', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    speech.seconds = 1;
    llm.enqueue(sseText(ANSWER), sseText(['ok']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Where is my order?' });
    await ws.waitFor((m) => m.type === 'audio', from);
    await new Promise((resolve) => setTimeout(resolve, 1400));
    ws.send({ type: 'interrupt' });
    await ws.waitFor((m) => m.type === 'assistant_end' && m.heard === true, from);
    speech.seconds = 0.1;
    speech.transcript = '';
    sound(ws);
    await ws.waitFor((m) => m.type === 'error' && m.code === 'no_speech', from, 10_000);
    await ws.turn('Thanks.');
    expect(ws.messages.slice(from).some((m) => m.resumed)).toBe(false);
    expect(llm.requests).toHaveLength(2);
    ws.close();
  });

  it('says nothing more when the utterance held words: they are the next turn', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    const from = await cutAnswer(ws, 'Wait, which order?', 'ok');
    await ws.waitFor((m) => m.type === 'assistant_end' && m.text === 'ok', from, 10_000);
    expect(ws.messages.slice(from).some((m) => m.resumed)).toBe(false);
    expect(llm.requests.at(-1)!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Where is my order?' },
      { role: 'assistant', content: 'Your order has shipped.' },
      { role: 'user', content: 'Wait, which order?' },
    ]);
    ws.close();
  });
});
