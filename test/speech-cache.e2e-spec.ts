import { samples } from './support/prometheus.js';
import { useVoiceRig } from './support/speech-server.js';
import { voiceSession, type WsClient } from './support/ws-client.js';

/** The audio of the said text `text`, as the client got it. */
async function said(ws: WsClient, text: string): Promise<Buffer> {
  const from = ws.messages.length;
  ws.send({ type: 'say', text });
  await ws.waitFor((m) => m.type === 'audio_end', from);
  return Buffer.concat(
    ws.messages
      .slice(from)
      .filter((m) => m.type === 'audio')
      .map((m) => Buffer.from(m.data as string, 'base64')),
  );
}

/**
 * TTS_CACHE_MB: a phrase said again and again (a call's greeting) is synthesised twice, then said
 * from what was kept: its audio at once, and no more requests to the TTS server.
 */
describe('speech kept for phrases said again (TTS_CACHE_MB)', () => {
  const rig = useVoiceRig({ TTS_CACHE_MB: '16' });

  it('says a greeting from the third call on with no request, and the same audio', async () => {
    const greeting = 'Hello, this is the front desk.';
    const heard: Buffer[] = [];
    for (let call = 0; call < 4; call++) {
      const ws = await voiceSession(rig.engine.wsUrl);
      heard.push(await said(ws, greeting));
      ws.close();
    }
    expect(rig.speech.inputs()).toEqual([greeting, greeting]);
    expect(heard.every((audio) => audio.equals(heard[0]!))).toBe(true);
    expect(heard[0]!.length).toBe(0.2 * 24000 * 2);
    // An answer's sentence said once is not kept; another voice is another phrase.
    const ws = await voiceSession(rig.engine.wsUrl, { voice: 'alloy' });
    await said(ws, greeting);
    expect(rig.speech.inputs()).toHaveLength(3);
    ws.close();
    const metrics = samples(await (await fetch(`${rig.engine.httpUrl}/metrics`)).text());
    expect(metrics.get('agent_engine_tts_cache_hits_total{provider="openai"}')).toBe(2);
  });
});
