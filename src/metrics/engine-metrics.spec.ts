import { EngineMetrics } from './engine-metrics.js';

/** The value of one sample line, e.g. `agent_engine_turns_total{outcome="completed"}`. */
async function sample(metrics: EngineMetrics, line: string): Promise<number | undefined> {
  const text = await metrics.registry.metrics();
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('EngineMetrics', () => {
  let open = 0;
  const metrics = new EngineMetrics({ sessions: () => open, processMetrics: false });

  it('reads open sessions at scrape time', async () => {
    open = 3;
    expect(await sample(metrics, 'agent_engine_ws_sessions')).toBe(3);
  });

  it('times a turn to its first text and its end, and counts its tool calls by tool', async () => {
    const meter = metrics.turn((name) => (name === 'get_weather' ? name : undefined));
    meter.see({ type: 'tool_call', name: 'get_weather' });
    meter.see({ type: 'tool_result', name: 'get_weather', ok: true, ms: 120 });
    meter.see({ type: 'tool_result', name: 'made_up', ok: false, ms: 1 });
    meter.see({ type: 'assistant_delta' });
    meter.see({ type: 'assistant_delta' });
    meter.end('completed');
    metrics.turn((name) => name).end('interrupted');

    expect(await sample(metrics, 'agent_engine_turn_first_text_seconds_count')).toBe(1);
    expect(await sample(metrics, 'agent_engine_turn_duration_seconds_count')).toBe(2);
    expect(await sample(metrics, 'agent_engine_turns_total{outcome="completed"}')).toBe(1);
    expect(await sample(metrics, 'agent_engine_turns_total{outcome="interrupted"}')).toBe(1);
    expect(
      await sample(metrics, 'agent_engine_tool_calls_total{tool="get_weather",ok="true"}'),
    ).toBe(1);
    // A name the model made up does not become a label value of its own.
    expect(
      await sample(metrics, 'agent_engine_tool_calls_total{tool="(unknown)",ok="false"}'),
    ).toBe(1);
    expect(
      await sample(metrics, 'agent_engine_tool_call_duration_seconds_sum{tool="get_weather"}'),
    ).toBeCloseTo(0.12);
  });

  it('counts completion requests by outcome and times the first event once', async () => {
    const ok = metrics.llmRequest('stream');
    ok.see();
    ok.see();
    ok.end('ok');
    metrics.llmRequest('reply').end('error');
    expect(await sample(metrics, 'agent_engine_llm_first_event_seconds_count{kind="stream"}')).toBe(
      1,
    );
    expect(
      await sample(metrics, 'agent_engine_llm_requests_total{kind="stream",outcome="ok"}'),
    ).toBe(1);
    expect(
      await sample(metrics, 'agent_engine_llm_requests_total{kind="reply",outcome="error"}'),
    ).toBe(1);
  });

  it('counts error events by code and sessions by whether they resumed', async () => {
    metrics.error('invalid_message');
    metrics.error('invalid_message');
    metrics.sessions.started(true);
    expect(await sample(metrics, 'agent_engine_errors_total{code="invalid_message"}')).toBe(2);
    expect(await sample(metrics, 'agent_engine_sessions_total{resumed="true"}')).toBe(1);
  });
});

describe('SpeechMetrics', () => {
  const metrics = new EngineMetrics({ sessions: () => 0, processMetrics: false });

  it('times only what ended with audio or a transcript, and counts every outcome', async () => {
    metrics.speech.transcribed('openai', 'ok', 0.4);
    metrics.speech.transcribed('openai', 'cancelled', 2);
    metrics.speech.synthesized('espeak', 'ok', 0.05);
    metrics.speech.synthesized('espeak', 'failed');
    metrics.speech.responded(0.9);
    const line = (name: string) => sample(metrics, name);
    expect(await line('agent_engine_stt_duration_seconds_count{provider="openai"}')).toBe(1);
    expect(await line('agent_engine_stt_duration_seconds_sum{provider="openai"}')).toBe(0.4);
    expect(
      await line(
        'agent_engine_speech_requests_total{kind="stt",provider="openai",outcome="cancelled"}',
      ),
    ).toBe(1);
    expect(await line('agent_engine_tts_first_audio_seconds_count{provider="espeak"}')).toBe(1);
    expect(
      await line(
        'agent_engine_speech_requests_total{kind="tts",provider="espeak",outcome="failed"}',
      ),
    ).toBe(1);
    expect(await line('agent_engine_voice_response_seconds_bucket{le="1"}')).toBe(1);
    expect(await line('agent_engine_voice_response_seconds_bucket{le="0.75"}')).toBe(0);
  });
});
