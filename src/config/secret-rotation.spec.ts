import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { egressEnvironment, useEgress } from '../common/egress.js';
import { parseEnv } from './env.js';
import { ROTATING_SECRETS } from './secret-files.js';
import { SecretRotation } from './secret-rotation.service.js';

const dir = mkdtempSync(join(tmpdir(), 'engine-rotation-'));
const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

/** Where each secret is read by the engine, in the configuration as its readers hold it. */
function live() {
  const env = parseEnv({
    ...process.env,
    LLM_FALLBACK_BASE_URL: 'http://fallback:8000/v1',
  });
  return {
    app: {
      port: env.port,
      logLevel: env.logLevel,
      ws: env.ws,
      adminApiKey: env.adminApiKey,
      corsOrigins: env.corsOrigins,
    },
    llm: env.llm,
    speech: env.speech,
    sessions: env.sessions,
    tracing: env.tracing,
  };
}

const rotationOf = (config: ReturnType<typeof live>) =>
  new SecretRotation(config.app, config.llm, config.speech, config.sessions, config.tracing);

describe('SecretRotation', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    useEgress({ proxy: '', noProxy: [] });
  });

  it('takes up every rotating secret changed in its file where its reader reads it', () => {
    const headers = (value: string) => JSON.stringify({ 'x-team': value });
    /** A value of `name` as its file holds it: a header object, a Redis URL, a key. */
    const valueOf = (name: string, value: string) =>
      name === 'OTEL_EXPORTER_OTLP_HEADERS'
        ? `x-team=${value}`
        : name.endsWith('HEADERS')
          ? headers(value)
          : name === 'SESSION_STORE_URL'
            ? `redis://:${value}@redis:6379`
            : name === 'EGRESS_PROXY'
              ? `http://agent:${value}@proxy.corp:3128`
              : value;
    const first: Record<string, string> = {};
    for (const name of ROTATING_SECRETS) {
      const value = valueOf(name, `${name}-1`);
      process.env[name] = value;
      process.env[`${name}_FILE`] = file(name, value);
      first[name] = value;
    }
    process.env.LLM_FALLBACK_BASE_URL = 'http://fallback:8000/v1';
    process.env.STT_FALLBACK_BASE_URL = 'http://stt-fallback:8000/v1';
    const config = live();
    useEgress({ proxy: first.EGRESS_PROXY!, noProxy: [] });
    const rotation = rotationOf(config);
    rotation.check(); // nothing changed
    expect(config.llm.apiKey).toBe('LLM_API_KEY-1');
    for (const name of ROTATING_SECRETS) file(name, `${valueOf(name, `${name}-2`)}\n`);
    rotation.check();
    expect({
      ADMIN_API_KEY: config.app.adminApiKey,
      WS_API_KEY: config.app.ws.apiKey,
      LLM_API_KEY: config.llm.apiKey,
      LLM_EXTRA_HEADERS: config.llm.extraHeaders['x-team'],
      LLM_FALLBACK_API_KEY: config.llm.fallback!.apiKey,
      LLM_FALLBACK_EXTRA_HEADERS: config.llm.fallback!.extraHeaders['x-team'],
      TTS_API_KEY: config.speech.tts.apiKey,
      STT_API_KEY: config.speech.stt.apiKey,
      STT_FALLBACK_API_KEY: config.speech.stt.fallback!.apiKey,
      SESSION_WEBHOOK_SECRET: config.sessions.webhookSecret,
      TWILIO_AUTH_TOKEN: config.speech.twilio.authToken,
      TWILIO_WEBHOOKS_SHARED_KEY: config.speech.twilio.webhooksSharedKey,
      SESSION_STORE_URL: new URL(config.sessions.storeUrl).password,
      OTEL_EXPORTER_OTLP_HEADERS: config.tracing.headers['x-team'],
      EGRESS_PROXY: new URL(egressEnvironment().HTTP_PROXY!).password,
    }).toEqual(Object.fromEntries(ROTATING_SECRETS.map((name) => [name, `${name}-2`])));
    expect(process.env.TTS_API_KEY).toBe('TTS_API_KEY-2');
  });

  it('keeps a secret in use while its rotated value is not valid, and takes up the others meanwhile', () => {
    process.env.LLM_API_KEY = 'sk-1';
    process.env.LLM_API_KEY_FILE = file('key', 'sk-1');
    process.env.LLM_EXTRA_HEADERS = '{"x-team":"voice"}';
    process.env.LLM_EXTRA_HEADERS_FILE = file('headers', '{"x-team":"voice"}');
    const config = live();
    const rotation = rotationOf(config);
    file('key', 'sk-2');
    file('headers', '{"x-team": ');
    rotation.check();
    // Another secret's fault (here a file caught half-written) holds no rotation back: an old key
    // may already be revoked.
    expect([config.llm.apiKey, config.llm.extraHeaders]).toEqual(['sk-2', { 'x-team': 'voice' }]);
    file('headers', '{"x-team":"sales"}');
    rotation.check();
    expect([config.llm.apiKey, config.llm.extraHeaders]).toEqual(['sk-2', { 'x-team': 'sales' }]);
  });
});
