import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useVoiceRig } from './support/speech-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { TwilioCall } from './support/twilio-call.js';
import { until } from './support/waiting.js';

/**
 * A call the engine ends (the model's `end_session` tool) hangs up once Twilio has played the
 * goodbye: the bridge marks the end of the speech it sent and closes the stream when Twilio
 * returns the mark, never cutting the last words Twilio still held.
 */
describe('/twilio: the agent hangs up', () => {
  const rig = useVoiceRig({
    LLM_TOOLS_FILE: writeToolsFile([{ type: 'end_session', name: 'hang_up' }]),
  });
  const { llm } = rig;
  const url = () => rig.engine.wsUrl.replace(/\/ws$/, '/twilio');

  it('closes the stream when Twilio has played the goodbye', async () => {
    const call = await TwilioCall.dial(url(), {});
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'hang_up', arguments: {} }]),
      sseText(['Goodbye!']),
    );
    call.send({ event: 'dtmf', streamSid: 'MZ0001', dtmf: { track: 'inbound_track', digit: '#' } });
    await until(() => call.got.some((f) => f.event === 'mark'), 'the mark after the goodbye');
    const mark = call.got.find((f) => f.event === 'mark')!;
    expect(mark).toEqual({ event: 'mark', streamSid: 'MZ0001', mark: { name: 'last-words' } });
    // Speech before the mark: the goodbye.
    expect(call.heard()).toBeGreaterThan(0);
    expect(call.got.indexOf(mark)).toBeGreaterThan(call.got.findIndex((f) => f.event === 'media'));
    // Twilio still plays it: the call stays up until the mark comes back.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(call.closeCode).toBeUndefined();
    call.send({ event: 'mark', streamSid: 'MZ0001', sequenceNumber: '9', mark: mark.mark });
    await until(() => call.closeCode !== undefined, 'the hang-up');
    expect(call.closeCode).toBe(1000);
    expect(llm.requests[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'DTMF: #' });
  });
});
