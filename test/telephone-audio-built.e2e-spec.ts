import { useBuiltEngine } from './support/built-engine.js';
import { openAiSpeech } from './support/engine.js';
import { FakeLlm, sseText } from './support/fake-llm.js';
import { FakeSpeech } from './support/speech-server.js';
import { quiet, SPEECH, TwilioCall } from './support/twilio-call.js';
import { until } from './support/waiting.js';

/**
 * A telephone line's audio (8 kHz G.711) through the engine as users run it, `node dist/main.js`:
 * the resampler is a CommonJS module imported when the first such session needs it, which Node and
 * jest's module loader name differently (the in-process suites run it under jest only).
 */
describe('a phone call on the built engine (G.711 resampled both ways)', () => {
  const llm = new FakeLlm();
  const speech = new FakeSpeech();
  const engine = useBuiltEngine(async () => ({
    LLM_BASE_URL: await llm.start(),
    LLM_MODEL: 'm',
    ...openAiSpeech(await speech.start()),
  }));
  afterAll(() => Promise.all([llm.stop(), speech.stop()]));

  it('plays the greeting and the answer on the call, and hears the caller', async () => {
    const call = await TwilioCall.dial(engine().wsUrl.replace(/\/ws$/, '/twilio'), {
      greeting: 'Hello, this is the front desk.',
    });
    // 0.2 s of 24 kHz speech as 8 kHz μ-law: about 1600 bytes.
    await until(() => call.heard() >= 1500, 'the greeting', 10_000);
    llm.enqueue(sseText(['It is sunny.']));
    const from = call.got.length;
    call.speak(Buffer.concat([quiet(500), SPEECH, quiet(1000)]));
    await until(() => call.heard(from) >= 1500, 'the answer', 10_000);
    expect(llm.requests[0]!.body.messages.at(-1)).toEqual({
      role: 'user',
      content: speech.transcript,
    });
    // The caller's 8 kHz words reached the transcription as 16 kHz audio.
    const transcription = speech.requests.find((r) => r.path === '/audio/transcriptions');
    expect(transcription!.body.length).toBeGreaterThan(16_000 * 2);
    call.send({ event: 'stop', sequenceNumber: '9', streamSid: 'MZ0001', stop: {} });
    await until(() => call.closeCode !== undefined, 'the call to close');
    expect(call.closeCode).toBe(1000);
  });
});
