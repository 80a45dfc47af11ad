import { parseEnv } from './env.js';

describe('parseEnv: speech and telephone calls', () => {
  it('follows the language the caller speaks, any or those named (STT_DETECT_LANGUAGE)', () => {
    const stt = (value?: string) => parseEnv({ STT_DETECT_LANGUAGE: value }).speech.stt;
    expect(stt()).toMatchObject({ detectLanguage: false, followLanguages: [] });
    expect(stt('true')).toMatchObject({ detectLanguage: true, followLanguages: [] });
    expect(stt('off')).toMatchObject({ detectLanguage: false, followLanguages: [] });
    expect(stt('en, ES')).toMatchObject({ detectLanguage: true, followLanguages: ['en', 'es'] });
    expect(() => stt('english,spanish')).toThrow(
      'STT_DETECT_LANGUAGE="english,spanish" is invalid: expected true, false, or language codes separated by commas such as en,es',
    );
  });

  it('speaks and listens through an OpenAI-compatible server once its URL is set, and needs the URL to', () => {
    expect(parseEnv({}).speech.tts.provider).toBe('espeak');
    expect(parseEnv({}).speech.stt.provider).toBe('none');
    const servers = parseEnv({ TTS_BASE_URL: 'http://tts/v1', STT_BASE_URL: 'http://stt/v1/' });
    expect(servers.speech.tts).toMatchObject({ provider: 'openai', baseUrl: 'http://tts/v1' });
    expect(servers.speech.stt).toMatchObject({ provider: 'openai', baseUrl: 'http://stt/v1' });
    expect(
      parseEnv({ TTS_BASE_URL: 'http://tts/v1', TTS_PROVIDER: 'none' }).speech.tts.provider,
    ).toBe('none');
    expect(() => parseEnv({ TTS_PROVIDER: 'openai' })).toThrow(
      'TTS_PROVIDER=openai needs TTS_BASE_URL (an absolute http:// or https:// URL)',
    );
    expect(() => parseEnv({ STT_PROVIDER: 'openai' })).toThrow(
      'STT_PROVIDER=openai needs STT_BASE_URL (an absolute http:// or https:// URL)',
    );
    expect(parseEnv({ STT_MAX_SECONDS: '600' }).speech.stt.maxSeconds).toBe(600);
    expect(() => parseEnv({ STT_MAX_SECONDS: '601' })).toThrow(
      'STT_MAX_SECONDS="601" is invalid: expected a number of seconds greater than 0 and at most 600',
    );
  });

  it("takes the Twilio stream's wss:// URL as written, and refuses one Twilio could not sign", () => {
    const { transferUnanswered, ...twilio } = parseEnv({}).speech.twilio;
    expect(transferUnanswered.en).toBe(
      'I am sorry, no one could take your call just now. Is there anything else I can help you with?',
    );
    expect(
      parseEnv({ TWILIO_TRANSFER_UNANSWERED: 'Nobody is free.' }).speech.twilio.transferUnanswered,
    ).toEqual({ '*': 'Nobody is free.' });
    expect(() => parseEnv({ TWILIO_DIAL_TIMEOUT_SECS: '2' })).toThrow('TWILIO_DIAL_TIMEOUT_SECS');
    expect(() => parseEnv({ TWILIO_FROM_NUMBER: '555-0199' })).toThrow(
      'TWILIO_FROM_NUMBER="555-0199" is invalid: expected a phone number in E.164 form, e.g. "+15550199"',
    );
    expect(twilio).toEqual({
      dialTimeoutSecs: 30,
      authToken: '',
      webhooksSharedKey: '',
      streamUrl: '',
      voiceUrl: '',
      greeting: '',
      greetingInterruptible: true,
      accountSid: '',
      fromNumber: '',
      apiBaseUrl: 'https://api.twilio.com',
    });
    expect(
      parseEnv({ TWILIO_GREETING: ' Hello. ', TWILIO_VOICE_URL: 'https://e.example/twilio/voice' })
        .speech.twilio,
    ).toMatchObject({ greeting: 'Hello.', voiceUrl: 'https://e.example/twilio/voice' });
    expect(
      parseEnv({ TWILIO_GREETING_INTERRUPTIBLE: 'false' }).speech.twilio.greetingInterruptible,
    ).toBe(false);
    expect(() => parseEnv({ TWILIO_GREETING_INTERRUPTIBLE: 'never' })).toThrow(
      'TWILIO_GREETING_INTERRUPTIBLE="never" is invalid',
    );
    expect(() => parseEnv({ TWILIO_GREETING: 'a'.repeat(10_001) })).toThrow(
      'TWILIO_GREETING is invalid: longer than 10000 characters',
    );
    expect(() => parseEnv({ TWILIO_VOICE_URL: 'wss://e.example/twilio' })).toThrow(
      'TWILIO_VOICE_URL="wss://e.example/twilio" is invalid: expected an absolute http:// or https:// URL',
    );
    const url = 'wss://engine.example.com:8443/twilio';
    expect(parseEnv({ TWILIO_STREAM_URL: url }).speech.twilio.streamUrl).toBe(url);
    for (const value of [
      'https://engine.example.com/twilio',
      'engine/twilio',
      'wss://e.example/t#x',
    ])
      expect(() => parseEnv({ TWILIO_STREAM_URL: value })).toThrow(
        `TWILIO_STREAM_URL=${JSON.stringify(value)} is invalid: expected the stream's absolute wss:// URL as the TwiML gives it, e.g. "wss://engine.example.com/twilio"`,
      );
    expect(parseEnv({}).speech.dtmf.timeoutMs).toBe(2000);
    expect(parseEnv({}).tools.confirmKeys).toEqual({ yes: '1', no: '2', repeat: '*' });
    expect(
      parseEnv({ TOOL_CONFIRM_KEY_YES: '9', TOOL_CONFIRM_KEY_NO: '', TOOL_CONFIRM_KEY_REPEAT: '2' })
        .tools.confirmKeys,
    ).toEqual({ yes: '9', no: '', repeat: '2' });
    expect(() => parseEnv({ TOOL_CONFIRM_KEY_REPEAT: '1' })).toThrow(
      'TOOL_CONFIRM_KEY_REPEAT="1" is invalid: it is TOOL_CONFIRM_KEY_YES\'s key too; expected another key, or empty for none',
    );
    expect(() => parseEnv({ TOOL_CONFIRM_KEY_YES: '12' })).toThrow(
      'TOOL_CONFIRM_KEY_YES="12" is invalid: expected one key of a phone\'s keypad (0-9, *, #, A-D), or empty for none',
    );
    expect(parseEnv({}).speech.idle).toMatchObject({ secs: 0, prompts: 2 });
    expect(parseEnv({ USER_IDLE_PHRASE: 'Hello?' }).speech.idle.phrases).toEqual({ '*': 'Hello?' });
    expect(parseEnv({ USER_IDLE_GOODBYE: '' }).speech.idle.goodbyes).toEqual({});
    expect(() => parseEnv({ USER_IDLE_SECS: '-1' })).toThrow(/^USER_IDLE_SECS="-1" is invalid/);
    expect(() => parseEnv({ DTMF_TIMEOUT_MS: '50' })).toThrow(/^DTMF_TIMEOUT_MS="50" is invalid/);
  });

  it('takes several phrases said in turn, for every language or per language', () => {
    const waits = (value: string) =>
      parseEnv({ SPEECH_TOOL_WAIT_PHRASE: value }).speech.toolWaitPhrases;
    expect(waits('["One moment.", "Let me check."]')).toEqual({
      '*': ['One moment.', 'Let me check.'],
    });
    expect(waits('{"EN":["One moment.","Let me check."],"it":"Un momento."}')).toEqual({
      en: ['One moment.', 'Let me check.'],
      it: 'Un momento.',
    });
    // Text that only begins with a bracket is one phrase.
    expect(waits('[sighs] One moment.')).toEqual({ '*': '[sighs] One moment.' });
    expect(() => waits('["One moment.", ""]')).toThrow(
      'SPEECH_TOOL_WAIT_PHRASE is invalid: expected a JSON array of one or more phrases (non-empty strings), e.g. ["One moment.","Let me check."]',
    );
    expect(() => waits('{"en":[]}')).toThrow(/SPEECH_TOOL_WAIT_PHRASE is invalid: .*\(not "en"\)/);
    expect(() => parseEnv({ USER_IDLE_PHRASE: '{"en":["Are you there?", 3]}' })).toThrow(
      /USER_IDLE_PHRASE is invalid: .*\(not "en"\)/,
    );
  });
});
