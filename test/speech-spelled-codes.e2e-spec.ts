import { sseText } from './support/fake-llm.js';
import { useVoiceRig } from './support/speech-server.js';
import { voiceSession } from './support/ws-client.js';

/**
 * SPEECH_SPELL_CODES: a booking number, a phone number or a code is said a character at a time,
 * so that the caller can note it down; the text and the history keep it as the model wrote it.
 */
describe('numbers and codes said a character at a time (SPEECH_SPELL_CODES)', () => {
  const rig = useVoiceRig();

  it('spells what the caller must note down, and keeps the answer as written', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    const answer =
      'Booked: your number is 48213977, reference XK429P. Call +39 06 1234 5678 to change it; it costs 1,250 euros.';
    rig.llm.enqueue(sseText([answer]), sseText(['Yes.']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Book it.' });
    await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    expect(rig.speech.inputs()).toEqual([
      'Booked: your number is 4 8 2 1 3 9 7 7, reference X K 4 2 9 P.',
      'Call +3 9, 0 6, 1 2 3 4, 5 6 7 8 to change it; it costs 1,250 euros.',
    ]);
    expect(ws.messages.find((m) => m.type === 'assistant_end')).toEqual({
      type: 'assistant_end',
      text: answer,
    });
    // Once its 0.4 s of audio has played (a turn sooner would cut it: a barge-in).
    await new Promise((r) => setTimeout(r, 600));
    const next = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Thanks.' });
    await ws.waitFor((m) => m.type === 'assistant_end', next, 10_000);
    expect(rig.llm.requests[1]!.body.messages.at(-2)).toEqual({
      role: 'assistant',
      content: answer,
    });
    ws.close();
  });
});
