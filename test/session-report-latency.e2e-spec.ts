import { sseCall, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { SPEECH, useVoiceRig } from './support/speech-server.js';
import { smsTool, writeToolsFile } from './support/tools-file.js';
import { untilAsync } from './support/waiting.js';
import { voiceSession, WsClient } from './support/ws-client.js';

const SLACK_MS = 15;

/**
 * The end-of-session report's `latency`: how long the connection's user waited for its answers —
 * the first text, the first audio, transcription, the LLM, the calls, synthesis — as the median,
 * the 90th percentile and the longest over its turns, whether or not the client asked for each
 * turn's timings.
 */
describe("the end-of-session report's latency", () => {
  const receiver = new RecordingServer();
  const tools = new RecordingServer();
  let receiverUrl: string;
  let toolsUrl: string;
  beforeAll(async () => {
    receiverUrl = await receiver.start();
    toolsUrl = await tools.start();
    tools.respond((_req, res) => void setTimeout(() => res.end('sent'), 250));
  });
  afterAll(async () => {
    await receiver.stop();
    await tools.stop();
  });
  const rig = useVoiceRig(() => ({
    SESSION_WEBHOOK_URL: `${receiverUrl}/reports`,
    LLM_TOOLS_FILE: writeToolsFile([smsTool(toolsUrl)]),
    VAD_SILENCE_MS: '0',
  }));

  /** The report of the connection `ws` once closed. */
  async function reportOf(ws: WsClient): Promise<Record<string, any>> {
    const id = ws.messages.find((m) => m.type === 'session')!.session_id as string;
    ws.close();
    let report: Record<string, any> | undefined;
    await untilAsync(async () => {
      report = receiver.requests
        .map((r) => JSON.parse(r.body) as Record<string, any>)
        .find((r) => r.session_id === id);
      return Promise.resolve(report !== undefined);
    }, 'the report');
    return report!;
  }

  it("sums up a text session's answers, not what the agent said of its own accord", async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    ws.send({ type: 'say', text: 'Hello, how can I help?' });
    await ws.waitFor((m) => m.type === 'assistant_end');
    rig.llm.enqueue(
      { ...sseText(['Hi ', 'Ada.']), delayMs: 120 },
      sseCall('call_1', 'send_sms', { to: '+15550100', text: 'Hi' }),
      sseText(['Sent.']),
    );
    const first = await ws.turn('I am Ada.', 10_000);
    expect(first.at(-1)).toEqual({ type: 'assistant_end', text: 'Hi Ada.' });
    await ws.turn('Text Bob hi', 10_000);
    const { latency } = await reportOf(ws);
    expect(Object.keys(latency)).toEqual(['first_text_ms', 'llm_first_ms', 'tools_ms']);
    expect(latency.first_text_ms.turns).toBe(2);
    // The slow answer's first text came after a 120 ms pause, the other's after a 250 ms call.
    expect(latency.first_text_ms.p50).toBeGreaterThanOrEqual(120 - SLACK_MS);
    expect(latency.first_text_ms.max).toBeGreaterThanOrEqual(250 - SLACK_MS);
    expect(latency.llm_first_ms.turns).toBe(2);
    expect(latency.llm_first_ms.max).toBeGreaterThanOrEqual(120 - SLACK_MS);
    expect(latency.tools_ms).toEqual({
      p50: expect.any(Number),
      p90: latency.tools_ms.p50,
      max: latency.tools_ms.p50,
      turns: 1,
    });
    expect(latency.tools_ms.p50).toBeGreaterThanOrEqual(250 - SLACK_MS);
  });

  it("sums up a caller's wait for the agent's voice, transcription and synthesis", async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    rig.speech.delayMs = 100;
    rig.llm.enqueue(sseText(['It is sunny in Paris.']));
    for (let at = 0; at < 32_000; at += 3200)
      ws.socket.send(SPEECH.subarray(at, at + 3200), { binary: true });
    ws.send({ type: 'audio_end' });
    await ws.waitFor((m) => m.type === 'audio_end', 0, 10_000);
    const { latency } = await reportOf(ws);
    expect(Object.keys(latency)).toEqual([
      'first_text_ms',
      'first_audio_ms',
      'stt_ms',
      'llm_first_ms',
      'tts_first_ms',
    ]);
    for (const measure of Object.values<{ turns: number }>(latency)) expect(measure.turns).toBe(1);
    expect(latency.stt_ms.p50).toBeGreaterThanOrEqual(100 - SLACK_MS);
    expect(latency.tts_first_ms.p50).toBeGreaterThanOrEqual(100 - SLACK_MS);
    expect(latency.first_audio_ms.p50).toBeGreaterThanOrEqual(
      latency.stt_ms.p50 + latency.tts_first_ms.p50 - 1, // each rounded on its own
    );
  });
});
