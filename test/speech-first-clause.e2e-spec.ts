import { sseText } from './support/fake-llm.js';
import { useVoiceRig } from './support/speech-server.js';
import { voiceSession } from './support/ws-client.js';

/**
 * SPEECH_FIRST_CLAUSE_CHARS: the answer's first sentence is sent to synthesis at its first comma
 * once that long, so that a caller hears it begin while a slow model still writes the rest.
 */
describe('the first clause said before its sentence has ended', () => {
  const rig = useVoiceRig({ SPEECH_FIRST_CLAUSE_CHARS: '20' });

  it("synthesises the first clause at once, the caller hearing it before the sentence's end is written", async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    rig.llm.enqueue({
      ...sseText(['Sure, ', 'I can book a table for you, ', 'let me check ', 'what is free.']),
      delayMs: 250,
    });
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'A table for two tonight?' });
    await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    expect(rig.speech.inputs()).toEqual([
      'Sure, I can book a table for you,',
      'let me check what is free.',
    ]);
    const events = ws.messages.slice(from);
    const firstAudio = events.findIndex((m) => m.type === 'audio');
    const lastWords = events.findIndex(
      (m) => m.type === 'assistant_delta' && (m.text as string).includes('what is free.'),
    );
    expect(firstAudio).toBeGreaterThan(-1);
    expect(firstAudio).toBeLessThan(lastWords);
    ws.close();
  });
});
