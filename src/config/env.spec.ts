import { readFileSync } from 'node:fs';
import { DEFAULT_CONFIRM_NO, DEFAULT_CONFIRM_YES } from './env-defaults.js';
import { EnvError, parseEnv } from './env.js';

describe('parseEnv', () => {
  it('gives the documented defaults', () => {
    const env = parseEnv({});
    expect(env.port).toBe(8787);
    expect(env.llm.baseUrl).toBe('http://localhost:8000/v1');
    expect(env.llm.traceContext).toBe(true);
    expect(parseEnv({ TRACE_CONTEXT: 'false' }).llm.traceContext).toBe(false);
    expect(env.tools).toEqual({
      enabled: false,
      explicit: undefined,
      file: '',
      fileWatchSecs: 0,
      specUrlWatchSecs: 0,
      mcpListWatchSecs: 0,
      maxIterations: 4,
      repeatCalls: 'reuse',
      interruptedCalls: 'finish',
      nudge: true,
      maxCallsPerRound: 16,
      earlyStart: true,
      timeoutSecs: 15,
      retries: 1,
      retryBackoffMs: 200,
      breakerFailures: 5,
      breakerCooldownSecs: 30,
      confirmKeys: { yes: '1', no: '2', repeat: '*' },
      resultMaxChars: 2000,
      maxResponseBytes: 1024 * 1024,
      confirmTimeoutSecs: 30,
      confirmYes: expect.arrayContaining(['yes', 'go ahead']),
      confirmNo: expect.arrayContaining(['no', 'never mind']),
    });
    expect(
      parseEnv({ TOOL_CONFIRM_YES: ' oui , vas-y,', TOOL_CONFIRM_NO: '' }).tools,
    ).toMatchObject({ confirmYes: ['oui', 'vas-y'], confirmNo: [] });
    // .env.example spells the default phrase lists out in full.
    const example = readFileSync('.env.example', 'utf8');
    const line = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(example)![1]!;
    expect(
      parseEnv({
        TOOL_CONFIRM_YES: line('TOOL_CONFIRM_YES'),
        TOOL_CONFIRM_NO: line('TOOL_CONFIRM_NO'),
      }).tools,
    ).toMatchObject({ confirmYes: DEFAULT_CONFIRM_YES, confirmNo: DEFAULT_CONFIRM_NO });
    expect(parseEnv({}).speech.toolWaitMs).toBe(2000);
    expect(parseEnv({}).speech.toolWaitPhrases).toMatchObject({
      en: 'One moment.',
      it: 'Un momento.',
    });
    expect(parseEnv({ SPEECH_TOOL_WAIT_PHRASE: ' ' }).speech.toolWaitPhrases).toEqual({});
    expect(parseEnv({ SPEECH_TOOL_WAIT_PHRASE: 'Hold on.' }).speech.toolWaitPhrases).toEqual({
      '*': 'Hold on.',
    });
    expect(
      parseEnv({ SPEECH_TOOL_WAIT_PHRASE: '{"EN":"Wait.","pt-BR":"Só um momento."}' }).speech
        .toolWaitPhrases,
    ).toEqual({ en: 'Wait.', 'pt-br': 'Só um momento.' });
  });

  it('lets clients choose any assistant, none, or those SESSION_AGENTS names', () => {
    const agents = (value?: string) => parseEnv({ SESSION_AGENTS: value }).sessions.clientAgents;
    expect([agents(), agents('*'), agents('None')]).toEqual([null, null, []]);
    expect(agents(' billing , to_front_desk,front desk ')).toEqual([
      'billing',
      'to_front_desk',
      'front desk',
    ]);
  });

  it('enables tools exactly when LLM_TOOLS_FILE is a non-empty path, unless told otherwise', () => {
    expect(parseEnv({ LLM_TOOLS_FILE: 'tools.json' }).tools.enabled).toBe(true);
    expect(parseEnv({ LLM_TOOLS_FILE: '   ' }).tools.enabled).toBe(false);
    expect(
      parseEnv({ LLM_TOOLS_FILE: 'tools.json', LLM_TOOLS_ENABLED: 'false' }).tools.enabled,
    ).toBe(false);
    // Booleans as people write them in a manifest: any case, yes/no, on/off, 1/0.
    for (const off of ['False', 'NO', 'Off', '0'])
      expect(parseEnv({ LLM_TOOLS_FILE: 'tools.json', LLM_TOOLS_ENABLED: off }).tools.enabled).toBe(
        false,
      );
    for (const on of ['TRUE', 'Yes', 'ON', '1'])
      expect(parseEnv({ LLM_TOOLS_ENABLED: on }).tools.enabled).toBe(true);
  });

  it('reads LLM_TOOLS_FILE_WATCH_SECS as seconds, 0 meaning never', () => {
    const watch = (value: string) =>
      parseEnv({ LLM_TOOLS_FILE_WATCH_SECS: value }).tools.fileWatchSecs;
    expect(watch('0')).toBe(0);
    expect(watch('0.0')).toBe(0);
    expect(watch('2.5')).toBe(2.5);
    expect(watch(' 10 ')).toBe(10);
    expect(watch('.5')).toBe(0.5);
    expect(watch('.0')).toBe(0);
    expect(() => watch('.')).toThrow(
      'LLM_TOOLS_FILE_WATCH_SECS="." is invalid: expected 0 (never) or a number of seconds',
    );
    expect(parseEnv({ LLM_TOOLS_SPEC_URL_WATCH_SECS: '300' }).tools.specUrlWatchSecs).toBe(300);
    expect(parseEnv({ LLM_TOOLS_MCP_LIST_WATCH_SECS: '60' }).tools.mcpListWatchSecs).toBe(60);
  });

  it.each([
    [
      'LLM_TOOL_MAX_ITERATIONS',
      'abc',
      /LLM_TOOL_MAX_ITERATIONS="abc" is invalid: expected an integer from 0 to 100/,
    ],
    ['PORT', '-1', /PORT="-1" is invalid: expected an integer from 0 to 65535/],
    [
      'LLM_TOOL_TIMEOUT_SECS',
      '0',
      /LLM_TOOL_TIMEOUT_SECS="0" is invalid: expected a number of seconds/,
    ],
    [
      'LLM_TIMEOUT_SECS',
      '3601',
      /LLM_TIMEOUT_SECS="3601" is invalid: expected a number of seconds greater than 0 and at most 3600/,
    ],
    ['LLM_ENABLED', 'maybe', /LLM_ENABLED="maybe" is invalid: expected one of true, 1/],
    ['LLM_BASE_URL', 'ftp://x', /LLM_BASE_URL="ftp:\/\/x" is invalid: expected an absolute http/],
    [
      'LLM_BASE_URL',
      'http://vllm:8000/v1/chat/completions/',
      'LLM_BASE_URL="http://vllm:8000/v1/chat/completions/" is invalid: give the base URL, without /chat/completions (the engine adds it), e.g. "http://vllm:8000/v1"',
    ],
    [
      'LLM_FALLBACK_BASE_URL',
      'https://api.example.com/v1/chat/completions',
      /LLM_FALLBACK_BASE_URL=.* is invalid: give the base URL, without \/chat\/completions .* e\.g\. "https:\/\/api\.example\.com\/v1"/,
    ],
    [
      'STT_BASE_URL',
      'http://whisper/v1/audio/transcriptions',
      /STT_BASE_URL=.* is invalid: give the base URL, without \/audio\/transcriptions/,
    ],
    ['TTS_BASE_URL', 'http://tts/v1/audio/speech', /TTS_BASE_URL=.* without \/audio\/speech/],
    ['LLM_EXTRA_BODY', '[1]', /LLM_EXTRA_BODY is invalid: expected a JSON object/],
    ['LLM_UNTAGGED_REASONING', 'yes please', /LLM_UNTAGGED_REASONING="yes please" is invalid/],
    [
      'LLM_SERVER_TOOL_PARSER',
      'hermes',
      /LLM_SERVER_TOOL_PARSER="hermes" is invalid: expected one of auto, off/,
    ],
    [
      'SHUTDOWN_GRACE_SECS',
      '-5',
      /SHUTDOWN_GRACE_SECS="-5" is invalid: expected an integer from 0 to 3600/,
    ],
    [
      'WS_MAX_BUFFERED_BYTES',
      '1000',
      /WS_MAX_BUFFERED_BYTES="1000" is invalid: expected an integer from 65536 to/,
    ],
    [
      'WS_MAX_SESSIONS',
      'many',
      /WS_MAX_SESSIONS="many" is invalid: expected an integer from 0 to 1000000/,
    ],
    [
      'TOOL_CONFIRM_TIMEOUT_SECS',
      'never',
      /TOOL_CONFIRM_TIMEOUT_SECS="never" is invalid: expected a number of seconds/,
    ],
    [
      'TOOL_CONFIRM_YES',
      'yes, !!',
      /TOOL_CONFIRM_YES: "!!" has no letter or digit; expected comma-separated phrases/,
    ],
    [
      'SPEECH_TOOL_WAIT_PHRASE',
      '{"english":"Wait."}',
      /SPEECH_TOOL_WAIT_PHRASE is invalid: expected a phrase, a JSON array of phrases said in turn, or a JSON object of language codes.*\(not "english"\)/,
    ],
    ['LLM_RETRIES', '11', /LLM_RETRIES="11" is invalid: expected an integer from 0 to 10/],
    ['LLM_TOOL_RETRIES', '6', /LLM_TOOL_RETRIES="6" is invalid: expected an integer from 0 to 5/],
    [
      'LLM_TOOLS_FILE_WATCH_SECS',
      '-5',
      /LLM_TOOLS_FILE_WATCH_SECS="-5" is invalid: expected 0 \(never\) or a number of seconds up to 3600/,
    ],
    [
      'LLM_TOOLS_SPEC_URL_WATCH_SECS',
      'hourly',
      /LLM_TOOLS_SPEC_URL_WATCH_SECS="hourly" is invalid: expected 0 \(never\) or a number of seconds up to 86400/,
    ],
    [
      'LLM_TOOLS_MCP_LIST_WATCH_SECS',
      '-1',
      /LLM_TOOLS_MCP_LIST_WATCH_SECS="-1" is invalid: expected 0 \(never\) or a number of seconds up to 86400/,
    ],
    [
      'LLM_TOOL_BREAKER_FAILURES',
      'many',
      /LLM_TOOL_BREAKER_FAILURES="many" is invalid: expected an integer from 0 to 1000/,
    ],
    [
      'LLM_TOOL_BREAKER_COOLDOWN_SECS',
      '0',
      /LLM_TOOL_BREAKER_COOLDOWN_SECS="0" is invalid: expected a number of seconds greater than 0 and at most 3600/,
    ],
    [
      'LLM_TOOL_RETRY_BACKOFF_MS',
      '-1',
      /LLM_TOOL_RETRY_BACKOFF_MS="-1" is invalid: expected an integer from 0 to 10000/,
    ],
    [
      'LLM_RETRY_BACKOFF_MS',
      '0.5',
      /LLM_RETRY_BACKOFF_MS="0.5" is invalid: expected an integer from 1 to 60000/,
    ],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL="loud" is invalid: expected one of error, warn/],
    ['LOG_FORMAT', 'xml', /LOG_FORMAT="xml" is invalid: expected one of json, pretty/],
    [
      'LLM_TOOL_INTERRUPTED_CALLS',
      'wait',
      /LLM_TOOL_INTERRUPTED_CALLS="wait" is invalid: expected one of finish, abort/,
    ],
    ['TTS_PROVIDER', 'say', /TTS_PROVIDER="say" is invalid: expected one of espeak, openai, none/],
    ['TTS_PROVIDER', 'openai', /TTS_PROVIDER=openai needs TTS_BASE_URL/],
    ['SPEECH_LANGUAGE', 'english!', /SPEECH_LANGUAGE="english!" is invalid/],
    ['LLM_CLOCK', 'hour', /LLM_CLOCK="hour" is invalid: expected one of date, time, off/],
    [
      'SESSION_TIMEZONE',
      'Rome',
      /SESSION_TIMEZONE="Rome" is invalid: expected an IANA time zone such as Europe\/Rome/,
    ],
    [
      'SESSION_AGENTS',
      'billing; sales',
      /SESSION_AGENTS="billing; sales" is invalid: "billing; sales" is no assistant's name; expected "\*", "none", or the names of assistants/,
    ],
    [
      'CODE_TOOLS_WORKERS',
      '0',
      /CODE_TOOLS_WORKERS="0" is invalid: expected an integer from 1 to 64/,
    ],
    [
      'CODE_TOOLS_ALLOW_PRIVATE_NETWORK',
      'sure',
      /CODE_TOOLS_ALLOW_PRIVATE_NETWORK="sure" is invalid/,
    ],
  ])('rejects %s=%s naming the variable and the accepted values', (name, value, message) => {
    expect(() => parseEnv({ [name]: value })).toThrow(EnvError);
    expect(() => parseEnv({ [name]: value })).toThrow(message);
  });

  it.each([
    [
      '[1]',
      /LLM_EXTRA_HEADERS is invalid: expected a JSON object of header names and string values/,
    ],
    ['{"X Key":"secret"}', /LLM_EXTRA_HEADERS is invalid: "X Key" is not a header name/],
    ['{"Content-Length":"5"}', /LLM_EXTRA_HEADERS is invalid: Content-Length is set by the engine/],
    ['{"X-Key":"sec\\nret"}', /the value of X-Key holds a line break/],
    ['{"X-Key":"s\\u0001"}', /the value of X-Key holds a control character/],
    ['{"X-Key":"клю́ч"}', /the value of X-Key holds a character beyond Latin-1/],
    ['{"X-Key":7}', /the value of X-Key must be a string/],
  ])('rejects LLM_EXTRA_HEADERS=%s, never showing a value', (value, message) => {
    expect(() => parseEnv({ LLM_EXTRA_HEADERS: value })).toThrow(message);
    expect(() => parseEnv({ LLM_EXTRA_HEADERS: value })).not.toThrow(/secret|sec.?ret/);
  });

  it('reads LLM_EXTRA_HEADERS and LLM_FALLBACK_EXTRA_HEADERS', () => {
    const env = parseEnv({
      LLM_EXTRA_HEADERS: '{"api-key":"k1","X-Title":"engine"}',
      LLM_FALLBACK_BASE_URL: 'http://f/v1',
      LLM_FALLBACK_EXTRA_HEADERS: '{"cf-aig-authorization":"Bearer k2"}',
    });
    expect(env.llm.extraHeaders).toEqual({ 'api-key': 'k1', 'X-Title': 'engine' });
    expect(env.llm.fallback?.extraHeaders).toEqual({ 'cf-aig-authorization': 'Bearer k2' });
    expect(parseEnv({}).llm.extraHeaders).toEqual({});
  });

  it('takes a Redis URL for SESSION_STORE_URL, TLS too, and never repeats a refused one', () => {
    for (const url of ['redis://:pw@redis:6379/0', 'rediss://user:pw@redis.example:6380'])
      expect(parseEnv({ SESSION_STORE_URL: url }).sessions.storeUrl).toBe(url);
    expect(parseEnv({}).sessions.storeUrl).toBe('');
    const refused = () => parseEnv({ SESSION_STORE_URL: 'http://:hunter2@redis:6379' });
    expect(refused).toThrow(
      'SESSION_STORE_URL is invalid: expected a redis:// or rediss:// URL, e.g. redis://redis:6379/0',
    );
    expect(refused).not.toThrow(/hunter2/);
  });

  it('reads LLM_MODELS as model names, once each, and refuses one with a space', () => {
    expect(parseEnv({}).llm.models).toEqual([]);
    expect(parseEnv({ LLM_MODELS: 'qwen3-coder, bank-lora,,qwen3-coder' }).llm.models).toEqual([
      'qwen3-coder',
      'bank-lora',
    ]);
    expect(() => parseEnv({ LLM_MODELS: 'qwen3 coder' })).toThrow(
      new EnvError(
        'LLM_MODELS is invalid: "qwen3 coder" is no model name (no spaces, at most 200 characters)',
      ),
    );
  });

  it('parses LLM_EXTRA_BODY and strips a trailing slash from LLM_BASE_URL', () => {
    const env = parseEnv({
      LLM_EXTRA_BODY: '{"skip_special_tokens":false}',
      LLM_BASE_URL: 'http://h:1/v1/',
    });
    expect(env.llm.extraBody).toEqual({ skip_special_tokens: false });
    expect(env.llm.baseUrl).toBe('http://h:1/v1');
  });
});
