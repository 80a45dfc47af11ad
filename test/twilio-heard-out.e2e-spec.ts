import { sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { useVoiceRig } from './support/speech-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { xmlCall } from './support/turn-harness.js';
import { quiet, SPEECH, TwilioCall } from './support/twilio-call.js';
import { until } from './support/waiting.js';

/**
 * `/twilio` while the agent's tools run: the caller's "okay" over the wait phrase is heard out,
 * not a barge-in: nothing Twilio has to play is cleared, and the call goes on to its answer.
 */
describe('/twilio: a caller speaking while tools run', () => {
  const tools = new RecordingServer();
  let base = '';
  let release: () => void = () => {};
  beforeAll(async () => {
    base = await tools.start();
    const gate = new Promise<void>((open) => (release = open));
    tools.respond((_req, res) => void gate.then(() => res.end('sunny')));
  });
  afterAll(async () => {
    release();
    await tools.stop();
  });
  const rig = useVoiceRig(() => ({
    WS_API_KEY: 'call-key',
    LLM_TOOLS_FILE: writeToolsFile([{ name: 'meteo', url: `${base}/meteo`, method: 'GET' }]),
    SPEECH_TOOL_WAIT_MS: '100',
  }));
  const { llm, speech } = rig;

  it('clears nothing for an "okay" over the wait phrase, and the call goes on', async () => {
    const call = await TwilioCall.dial(rig.engine.wsUrl.replace(/\/ws$/, '/twilio'), {
      token: 'call-key',
    });
    llm.enqueue(sseText([xmlCall('meteo', {})]), sseText(['It is sunny.']));
    call.speak(Buffer.concat([SPEECH, quiet(1000)]));
    speech.seconds = 5; // the wait phrase plays on while the caller speaks
    await until(() => speech.inputs().includes('One moment.'), 'the wait phrase', 10_000);
    await until(() => call.heard() > 0, 'the wait phrase played', 10_000);
    speech.transcript = 'Okay, thanks.';
    call.speak(Buffer.concat([SPEECH, quiet(1000)]));
    await until(
      () => speech.requests.filter((r) => r.path === '/audio/transcriptions').length === 2,
      'the okay heard',
      10_000,
    );
    speech.seconds = 0.2;
    release();
    await until(() => speech.inputs().includes('It is sunny.'), 'the answer', 10_000);
    expect(call.got.some((f) => f.event === 'clear')).toBe(false);
    expect(tools.requests).toHaveLength(1); // the call ran once, to its end
    expect(llm.requests).toHaveLength(2);
    call.socket.close();
  });
});
