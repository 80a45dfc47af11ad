import type { AudioTimings, TextTimings } from '../src/orchestrator/turn-timings.js';
import { sseCall, sseText } from './support/fake-llm.js';
import { SPEECH, useVoiceRig } from './support/speech-server.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { smsTool, writeToolsFile } from './support/tools-file.js';
import { voiceSession, type Msg, type WsClient } from './support/ws-client.js';

/** `session.update` of `settings`, once the engine has taken it. */
async function update(ws: WsClient, settings: Record<string, unknown>): Promise<Msg> {
  const from = ws.messages.length;
  ws.send({ type: 'session.update', ...settings });
  return ws.waitFor((m) => m.type === 'session.updated', from);
}

/** Timers may fire a little early as the engine's clock sees them. */
const SLACK_MS = 15;
/** Two figures each rounded to the millisecond, added. */
const ROUNDING_MS = 1;

/**
 * `session.update`'s `timings`: where a turn's time went — the LLM's first event and its
 * requests, the calls, the first text, transcription, synthesis and the first audio — on the
 * turn's `assistant_end` and `audio_end`, for a client that asks.
 */
describe("a turn's timings", () => {
  const rig = useEngineRig(
    (base) => ({ LLM_MODEL: 'm', LLM_TOOLS_FILE: writeToolsFile([smsTool(base)]) }),
    (_req, res) => void setTimeout(() => res.end('sent'), 300),
  );
  const client = useClientPerTest(rig);

  it('says how long the LLM, the calls and the first text took, as the client saw them', async () => {
    const { ws } = client;
    expect((await update(ws, { timings: true })).settings).toMatchObject({ timings: true });
    rig.llm.enqueue(
      { ...sseCall('call_1', 'send_sms', { to: '+15550100', text: 'Hi' }), delayMs: 80 },
      { ...sseText(['Sent ', 'it.']), delayMs: 50 },
    );
    const sentAt = performance.now();
    const turn = await ws.turn('Text Ada hi', 10_000);
    const waited = performance.now() - sentAt;
    const end = turn.at(-1)!;
    expect(end).toMatchObject({ type: 'assistant_end', text: 'Sent it.' });
    const t = end.timings as Required<TextTimings>;
    expect(Object.keys(t).sort()).toEqual(
      [
        'first_text_ms',
        'llm_first_ms',
        'llm_ms',
        'llm_requests',
        'llm_rounds',
        'tools_ms',
        'total_ms',
      ].sort(),
    );
    expect(t.llm_requests).toBe(2);
    // Each round: the second's first text came 50 ms after its request; the rounds are the whole.
    expect(t.llm_rounds).toHaveLength(2);
    expect(t.llm_rounds[0]!.first_ms).toBe(t.llm_first_ms);
    expect(t.llm_rounds[1]!.first_ms).toBeGreaterThanOrEqual(50 - SLACK_MS);
    expect(Math.abs(t.llm_rounds[0]!.ms + t.llm_rounds[1]!.ms - t.llm_ms)).toBeLessThanOrEqual(2);
    // The call came in the first request's second piece, 80 ms after its first.
    expect(t.llm_first_ms).toBeGreaterThanOrEqual(80 - SLACK_MS);
    // Each stream's pieces came 80 and 50 ms apart: five and five.
    expect(t.llm_ms).toBeGreaterThanOrEqual(4 * 80 + 4 * 50 - SLACK_MS);
    expect(t.tools_ms).toBeGreaterThanOrEqual(300 - SLACK_MS);
    // The first text came after the first request, the call and the second's first piece.
    expect(t.first_text_ms).toBeGreaterThanOrEqual(4 * 80 + t.tools_ms + 50 - SLACK_MS);
    expect(t.total_ms).toBeGreaterThanOrEqual(t.llm_ms + t.tools_ms - ROUNDING_MS);
    expect(t.total_ms).toBeGreaterThanOrEqual(t.first_text_ms);
    expect(t.total_ms).toBeLessThanOrEqual(waited + 1);
  });

  it('sends none unless asked, and none again once turned off', async () => {
    const { ws } = client;
    rig.llm.enqueue(sseText(['Hello.']), sseText(['Hi.']), sseText(['Bye.']));
    expect((await ws.turn('Hello')).at(-1)).toEqual({ type: 'assistant_end', text: 'Hello.' });
    await update(ws, { timings: true });
    expect((await ws.turn('Hi')).at(-1)).toMatchObject({ timings: { llm_requests: 1 } });
    const off = await update(ws, { timings: false });
    expect(off.settings).not.toHaveProperty('timings');
    expect((await ws.turn('Bye')).at(-1)).toEqual({ type: 'assistant_end', text: 'Bye.' });
  });

  it('refuses a value that is not true or false, the session alive', async () => {
    const { ws } = client;
    ws.send({ type: 'session.update', timings: 'yes' });
    const refused = await ws.waitFor((m) => m.type === 'error');
    expect(refused.message).toMatch(/^"timings" must be true or false/);
    rig.llm.enqueue(sseText(['Still here.']));
    expect((await ws.turn('Hello')).at(-1)).toEqual({ type: 'assistant_end', text: 'Still here.' });
  });
});

describe("a spoken turn's timings", () => {
  const rig = useVoiceRig({ VAD_SILENCE_MS: '0' });

  it('adds the transcription to the text, and the synthesis and first audio on audio_end', async () => {
    const ws = await voiceSession(rig.engine.wsUrl, { timings: true });
    rig.speech.delayMs = 120;
    rig.llm.enqueue(sseText(['It is sunny in Paris.']));
    const from = ws.messages.length;
    const sentAt = performance.now();
    for (let at = 0; at < 32_000; at += 3200)
      ws.socket.send(SPEECH.subarray(at, at + 3200), { binary: true });
    ws.send({ type: 'audio_end' });
    const audioEnd = await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    const waited = performance.now() - sentAt;
    const end = ws.messages.slice(from).find((m) => m.type === 'assistant_end')!;
    const text = end.timings as Required<TextTimings>;
    expect(text.stt_ms).toBeGreaterThanOrEqual(120 - SLACK_MS);
    expect(text.first_text_ms).toBeGreaterThanOrEqual(text.stt_ms);
    const audio = audioEnd.timings as Required<AudioTimings>;
    expect(Object.keys(audio).sort()).toEqual(['first_audio_ms', 'total_ms', 'tts_first_ms']);
    expect(audio.tts_first_ms).toBeGreaterThanOrEqual(120 - SLACK_MS);
    // The answer's audio came after its words were transcribed, written and synthesised.
    // (Each figure is rounded on its own: their sum may be a millisecond over.)
    expect(audio.first_audio_ms).toBeGreaterThanOrEqual(
      text.first_text_ms + audio.tts_first_ms - ROUNDING_MS,
    );
    expect(audio.total_ms).toBeGreaterThanOrEqual(audio.first_audio_ms);
    expect(audio.total_ms).toBeLessThanOrEqual(waited + 1);
    ws.close();
  });

  it("times a said text's speech, with no request to the model", async () => {
    const ws = await voiceSession(rig.engine.wsUrl, { timings: true });
    const from = ws.messages.length;
    ws.send({ type: 'say', text: 'Hello, this is the front desk.' });
    await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    const events = ws.messages.slice(from);
    expect(events.find((m) => m.type === 'assistant_end')!.timings).toEqual({
      llm_ms: 0,
      llm_requests: 0,
      first_text_ms: expect.any(Number),
      total_ms: expect.any(Number),
    });
    expect(events.find((m) => m.type === 'audio_end')!.timings).toEqual({
      tts_first_ms: expect.any(Number),
      first_audio_ms: expect.any(Number),
      total_ms: expect.any(Number),
    });
    expect(rig.llm.requests).toHaveLength(0);
    ws.close();
  });
});
