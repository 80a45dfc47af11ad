import { sseText } from './support/fake-llm.js';
import { SPEECH, useVoiceRig } from './support/speech-server.js';
import { kinds } from './support/turn-harness.js';
import { voiceSession, WsClient, type Msg } from './support/ws-client.js';

const SORRY = 'Sorry, something went wrong on my side. Could you say that again?';
const LLM_DOWN = {
  kind: 'status' as const,
  status: 500,
  body: '{"error":{"message":"model crashed"}}',
};

/** The events after `from` up to the `n`th `assistant_end`. */
async function turnsFrom(ws: WsClient, from: number, n: number): Promise<Msg[]> {
  let seen = 0;
  const last = await ws.waitFor((m) => m.type === 'assistant_end' && ++seen === n, from);
  return ws.messages.slice(from, ws.messages.indexOf(last) + 1);
}

/**
 * A voice turn that fails (the LLM server down, the speech-to-text server down) is not left in
 * silence: the caller hears SPEECH_ERROR_PHRASE, or SPEECH_UNCLEAR_PHRASE, and may say it again.
 */
describe('a failed voice turn is not left in silence', () => {
  const rig = useVoiceRig({ LLM_RETRIES: '0', VAD_SILENCE_MS: '0' });

  it('says SPEECH_ERROR_PHRASE after an LLM failure, as a turn the model then reads', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    rig.llm.enqueue(LLM_DOWN);
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'What is on my account?' });
    const events = await turnsFrom(ws, from, 2);
    expect(kinds(events.filter((m) => m.type !== 'audio'))).toEqual([
      'error',
      'assistant_end',
      'audio_end',
      'assistant_delta',
      'assistant_end',
    ]);
    expect(events[0]).toMatchObject({ type: 'error', code: 'llm_failed' });
    expect(events.at(-1)).toEqual({ type: 'assistant_end', text: SORRY });
    await ws.waitFor((m) => m.type === 'audio_end', ws.messages.indexOf(events.at(-1)!));
    expect(rig.speech.inputs().join(' ')).toBe(SORRY);
    // The model knows what the caller heard (played out: 0.2 s a sentence).
    await new Promise((resolve) => setTimeout(resolve, 900));
    rig.llm.enqueue(sseText(['Your balance is 40 euros.']));
    const next = ws.messages.length;
    ws.send({ type: 'user_text', text: 'What is on my account?' });
    await ws.waitFor((m) => m.type === 'assistant_end', next);
    expect(rig.llm.requests.at(-1)!.body.messages.slice(-3)).toEqual([
      { role: 'user', content: 'What is on my account?' },
      { role: 'assistant', content: SORRY },
      { role: 'user', content: 'What is on my account?' },
    ]);
    ws.close();
  });

  it('says it in the language of the session, and nothing in a text session', async () => {
    const it = await voiceSession(rig.engine.wsUrl, { language: 'it' });
    rig.llm.enqueue(LLM_DOWN);
    const from = it.messages.length;
    it.send({ type: 'user_text', text: 'Che saldo ho?' });
    const events = await turnsFrom(it, from, 2);
    expect(events.at(-1)).toEqual({
      type: 'assistant_end',
      text: "Mi scusi, c'è stato un problema da parte mia. Può ripetere?",
    });
    it.close();

    const text = await WsClient.connect(rig.engine.wsUrl);
    rig.llm.enqueue(LLM_DOWN);
    const turn = await text.turn('What is on my account?');
    expect(kinds(turn)).toEqual(['error', 'assistant_end']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(text.messages.at(-1)).toEqual(turn.at(-1));
    text.close();
  });

  it('says SPEECH_UNCLEAR_PHRASE when the speech-to-text server failed on the utterance', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    rig.speech.respond((req, res) => {
      if (req.path === '/audio/transcriptions') return void res.writeHead(503).end('overloaded');
      res.writeHead(200, { 'Content-Type': 'audio/pcm' }).end(Buffer.alloc(9600, 7));
    });
    try {
      const from = ws.messages.length;
      ws.socket.send(SPEECH.subarray(0, 32_000), { binary: true });
      ws.send({ type: 'audio_end' });
      const events = await turnsFrom(ws, from, 1);
      expect(events[0]).toMatchObject({ type: 'error', code: 'stt_failed' });
      expect(events.at(-1)).toEqual({ type: 'assistant_end', text: "Sorry, I didn't catch that." });
      expect(rig.llm.requests).toHaveLength(0);
    } finally {
      rig.speech.respondAsSpeech();
      ws.close();
    }
  });
});
