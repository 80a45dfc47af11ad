import { sseText } from './support/fake-llm.js';
import { SPEECH, useVoiceRig } from './support/speech-server.js';
import { voiceSession, type WsClient } from './support/ws-client.js';

/** An utterance sent whole and ended by the client: its answer, once said. */
async function say(ws: WsClient): Promise<void> {
  const from = ws.messages.length;
  for (let at = 0; at < 32_000; at += 3200)
    ws.socket.send(SPEECH.subarray(at, at + 3200), { binary: true });
  ws.send({ type: 'audio_end' });
  await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
}

/**
 * While a caller's words are transcribed, the engine opens its connection to the LLM server if
 * none is ready (an idle one is closed after 5 s): the answer's request then finds it, its TCP
 * (and, to a hosted API, TLS) handshake done during the transcription rather than after it.
 */
describe("the LLM server's connection readied while the caller's words are transcribed", () => {
  const rig = useVoiceRig({ VAD_SILENCE_MS: '0' });

  it('opens it with a GET /models that the answer then reuses, and only when none is ready', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    rig.speech.delayMs = 150;
    rig.llm.enqueue(sseText(['It is sunny.']), sseText(['Still sunny.']));
    const before = rig.llm.modelsPorts.length;
    await say(ws);
    const warmed = rig.llm.modelsPorts.slice(before);
    expect(warmed).toHaveLength(1);
    expect(rig.llm.requests[0]!.clientPort).toBe(warmed[0]);
    // The connection is kept between the turns: the next utterance finds it ready.
    await say(ws);
    expect(rig.llm.modelsPorts.slice(before)).toHaveLength(1);
    expect(rig.llm.requests[1]!.clientPort).toBe(warmed[0]);
    ws.close();
  });
});
