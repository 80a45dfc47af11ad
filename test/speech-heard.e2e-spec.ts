import { sseText } from './support/fake-llm.js';
import { useVoiceRig } from './support/speech-server.js';
import { voiceSession } from './support/ws-client.js';

/** Bytes of 24 kHz 16-bit speech in `seconds`. */
const speechBytes = (seconds: number) => seconds * 24000 * 2;

/**
 * What a barge-in keeps is what the user heard, not what was sent: audio goes out up to
 * SPEECH_AUDIO_LEAD_MS ahead of playback (here 3 s), and a sentence still playing when the user
 * cuts in was not heard whole, though all of its audio had been sent.
 */
describe('what the user heard before a barge-in', () => {
  const rig = useVoiceRig({ SPEECH_AUDIO_LEAD_MS: '3000' });
  const { llm, speech } = rig;

  it('keeps the sentences played by then, not those only sent', async () => {
    speech.seconds = 2; // each sentence: 2 s of speech
    const ws = await voiceSession(rig.engine.wsUrl);
    llm.enqueue(
      sseText(['Your order has shipped. ', 'It arrives on Monday. ', 'It comes by post. ', 'Bye.']),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Where is my order?' });
    await ws.waitFor((m) => m.type === 'audio', from);
    const firstAudio = performance.now();
    // Cut in during the second sentence (2–4 s into the answer), all of it sent by then.
    await new Promise((resolve) => setTimeout(resolve, 2800 - (performance.now() - firstAudio)));
    const sent = ws.messages
      .slice(from)
      .filter((m) => m.type === 'audio')
      .reduce((bytes, m) => bytes + Buffer.from(m.data as string, 'base64').length, 0);
    expect(sent).toBeGreaterThanOrEqual(speechBytes(4));
    ws.send({ type: 'interrupt' });
    expect(
      await ws.waitFor((m) => m.type === 'assistant_end' && m.heard === true, from),
    ).toMatchObject({ text: 'Your order has shipped.', interrupted: true });
    llm.enqueue(sseText(['Sure.']));
    speech.seconds = 0.2;
    await ws.turn('Cancel it.');
    expect(llm.requests[1]!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Where is my order?' },
      { role: 'assistant', content: 'Your order has shipped.' },
      { role: 'user', content: 'Cancel it.' },
    ]);
    ws.close();
  });

  // The turn is over once its audio is all sent, up to 3 s before the client has played it.
  it('cuts an answer whose turn has ended while its last audio still plays', async () => {
    speech.seconds = 1.5;
    const ws = await voiceSession(rig.engine.wsUrl);
    llm.enqueue(sseText(['Your order has shipped. ', 'It arrives on Monday. ', 'Bye.']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Where is my order?' });
    await ws.waitFor((m) => m.type === 'audio', from);
    const firstAudio = performance.now();
    const end = await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(end).toEqual({
      type: 'assistant_end',
      text: 'Your order has shipped. It arrives on Monday. Bye.',
    });
    // 2.2 s into 4.5 s of speech: the second sentence is playing.
    await new Promise((resolve) => setTimeout(resolve, 2200 - (performance.now() - firstAudio)));
    llm.enqueue(sseText(['Sure.']));
    speech.seconds = 0.2;
    const next = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Cancel it.' });
    const heard = await ws.waitFor((m) => m.type === 'assistant_end', next);
    expect(heard).toEqual({
      type: 'assistant_end',
      text: 'Your order has shipped.',
      interrupted: true,
      heard: true,
    });
    // Then the new turn.
    await ws.waitFor((m) => m.type === 'assistant_end' && m.text === 'Sure.', next);
    expect(llm.requests[1]!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Where is my order?' },
      { role: 'assistant', content: 'Your order has shipped.' },
      { role: 'user', content: 'Cancel it.' },
    ]);
    ws.close();
  });

  it('keeps an answer whole once its audio has all played', async () => {
    speech.seconds = 0.3;
    const ws = await voiceSession(rig.engine.wsUrl);
    llm.enqueue(sseText(['Your order has shipped. ', 'Bye.']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Where is my order?' });
    await ws.waitFor((m) => m.type === 'audio', from);
    const firstAudio = performance.now();
    await ws.waitFor((m) => m.type === 'assistant_end', from);
    await new Promise((resolve) => setTimeout(resolve, 900 - (performance.now() - firstAudio)));
    ws.send({ type: 'interrupt' });
    llm.enqueue(sseText(['Sure.']));
    await ws.turn('Cancel it.');
    expect(ws.messages.filter((m) => m.type === 'assistant_end' && m.heard)).toEqual([]);
    expect(llm.requests[1]!.body.messages.slice(1, 3)).toEqual([
      { role: 'user', content: 'Where is my order?' },
      { role: 'assistant', content: 'Your order has shipped. Bye.' },
    ]);
    ws.close();
  });
});
