import { answerCall, machineVerdict, placedCall, voiceUrlOf } from './twilio-voice.js';

describe('machineVerdict', () => {
  it.each([
    ['human', 'human'],
    ['machine_end_beep', 'machine'],
    ['machine_end_silence', 'machine'],
    ['machine_end_other', 'machine'],
    ['machine_start', 'machine'],
    ['fax', 'fax'],
    ['unknown', 'unknown'],
    [undefined, 'unknown'],
    ['robot', 'unknown'],
  ])('reads AnsweredBy %j as %s', (answeredBy, verdict) => {
    expect(machineVerdict(answeredBy)).toBe(verdict);
  });
});

describe('voiceUrlOf', () => {
  it('is TWILIO_VOICE_URL when set, else /twilio/voice on the streams’ host', () => {
    const streamUrl = 'wss://voice.example.com/twilio';
    expect(voiceUrlOf({ voiceUrl: 'https://hooks.example.com/call?x=1', streamUrl })).toBe(
      'https://hooks.example.com/call?x=1',
    );
    expect(voiceUrlOf({ voiceUrl: '', streamUrl })).toBe('https://voice.example.com/twilio/voice');
    expect(voiceUrlOf({ voiceUrl: '', streamUrl: 'ws://10.0.0.5:8787/twilio/?token=t' })).toBe(
      'http://10.0.0.5:8787/twilio/voice',
    );
  });
});

describe('the greeting in the TwiML', () => {
  const call = { From: '+15550100', To: '+15550199' };
  const parameters = (twiml: string) =>
    [...twiml.matchAll(/<Parameter name="(\w+)" value="([^"]*)"\/>/g)].map((m) => [m[1], m[2]]);

  it('tells the stream that the caller may not cut it, only when they may not', async () => {
    const stream = { url: 'wss://e.example.com/twilio', token: 'k', call };
    const firm = await answerCall(stream, { greeting: 'Recorded.', interruptible: false });
    expect(parameters(firm).slice(0, 3)).toEqual([
      ['token', 'k'],
      ['greeting', 'Recorded.'],
      ['greeting_interruptible', 'false'],
    ]);
    const plain = await answerCall(stream, { greeting: 'Hello.', interruptible: true });
    expect(parameters(plain).map(([name]) => name)).not.toContain('greeting_interruptible');
    // No greeting, nothing to say of it.
    const none = await placedCall(
      { url: stream.url, token: 'k' },
      { greeting: '', interruptible: false, variables: {}, resume: 'r' },
    );
    expect(parameters(none)).toEqual([
      ['token', 'k'],
      ['resume', 'r'],
    ]);
  });
});
