import { machineVerdict, voiceUrlOf } from './twilio-voice.js';

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
