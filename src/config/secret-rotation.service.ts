import {
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import {
  appConfig,
  llmConfig,
  sessionsConfig,
  speechConfig,
  tracingConfig,
  type AppConfig,
  type LlmConfig,
  type SessionsConfig,
  type SpeechConfig,
  type TracingConfig,
} from './app.config.js';
import { renewEgressCredentials } from '../common/egress.js';
import { CLIENT_TLS, clientTlsEnv, type ClientTlsOwner } from './client-tls-env.js';
import { parseEnv, type Env } from './env.js';
import { rereadSecrets, rotatingFiles, type RotatingSecret } from './secret-files.js';

interface Live {
  app: AppConfig;
  llm: LlmConfig;
  speech: SpeechConfig;
  sessions: SessionsConfig;
  tracing: TracingConfig;
}

/** Where each rotating secret lives in the configuration its readers read at each request. */
const TAKE_UP: Record<RotatingSecret, (next: Env, live: Live) => void> = {
  ADMIN_API_KEY: (next, live) => (live.app.adminApiKey = next.adminApiKey),
  WS_API_KEY: (next, live) => (live.app.ws.apiKey = next.ws.apiKey),
  LLM_API_KEY: (next, live) => (live.llm.apiKey = next.llm.apiKey),
  LLM_EXTRA_HEADERS: (next, live) => (live.llm.extraHeaders = next.llm.extraHeaders),
  LLM_FALLBACK_API_KEY: (next, live) => {
    if (live.llm.fallback && next.llm.fallback) live.llm.fallback.apiKey = next.llm.fallback.apiKey;
  },
  LLM_FALLBACK_EXTRA_HEADERS: (next, live) => {
    if (live.llm.fallback && next.llm.fallback)
      live.llm.fallback.extraHeaders = next.llm.fallback.extraHeaders;
  },
  TTS_API_KEY: (next, live) => (live.speech.tts.apiKey = next.speech.tts.apiKey),
  STT_API_KEY: (next, live) => (live.speech.stt.apiKey = next.speech.stt.apiKey),
  STT_FALLBACK_API_KEY: (next, live) => {
    if (live.speech.stt.fallback && next.speech.stt.fallback)
      live.speech.stt.fallback.apiKey = next.speech.stt.fallback.apiKey;
  },
  TWILIO_AUTH_TOKEN: (next, live) => (live.speech.twilio.authToken = next.speech.twilio.authToken),
  TWILIO_WEBHOOKS_SHARED_KEY: (next, live) =>
    (live.speech.twilio.webhooksSharedKey = next.speech.twilio.webhooksSharedKey),
  SESSION_WEBHOOK_SECRET: (next, live) =>
    (live.sessions.webhookSecret = next.sessions.webhookSecret),
  SESSION_STORE_URL: (next, live) => (live.sessions.storeUrl = next.sessions.storeUrl),
  OTEL_EXPORTER_OTLP_HEADERS: (next, live) => (live.tracing.headers = next.tracing.headers),
  EGRESS_PROXY: (next) => renewEgressCredentials(next.egress.proxy),
};

/** When a secret taken up counts, where that is not "the next request". */
const FROM: Partial<Record<RotatingSecret, string>> = {
  SESSION_STORE_URL:
    'its credentials used from the next connection to Redis (another server only after a restart)',
  OTEL_EXPORTER_OTLP_HEADERS: 'sent with the next spans exported',
  EGRESS_PROXY:
    'its credentials sent from the next connection to the proxy on (another proxy only after a restart)',
};

/**
 * SECRET_FILES_WATCH_SECS: the secrets given as files (`NAME_FILE`) are read again, so that a key
 * rotated in its file (a Kubernetes Secret updated, Vault's agent renewing it) is used from the
 * next request on, with no restart. A file that cannot be read, or a value that is not valid,
 * keeps the one in use, with a warning naming the variable (never the secret).
 */
@Injectable()
export class SecretRotation implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Secrets');
  private timer: NodeJS.Timeout | undefined;
  /** The last warning of each variable, so that a lasting fault is said once. */
  private readonly warned = new Map<string, string>();
  private readonly live: Live;

  constructor(
    @Inject(appConfig.KEY) app: AppConfig,
    @Inject(llmConfig.KEY) llm: LlmConfig,
    @Inject(speechConfig.KEY) speech: SpeechConfig,
    @Inject(sessionsConfig.KEY) sessions: SessionsConfig,
    @Inject(tracingConfig.KEY) tracing: TracingConfig,
  ) {
    this.live = { app, llm, speech, sessions, tracing };
  }

  onModuleInit(): void {
    const secs = parseEnv(process.env).secretFilesWatchSecs;
    const watched =
      Object.keys(rotatingFiles(process.env)).length > 0 ||
      this.live.llm.clientTls !== undefined ||
      this.live.speech.clientTls !== undefined;
    if (secs === 0 || !watched) return;
    this.timer = setInterval(() => this.check(), secs * 1000);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Reads the files again; takes up the secrets that changed. */
  check(): void {
    this.renewClientTls('llm');
    this.renewClientTls('speech');
    const changed: Record<string, string> = {};
    for (const [name, result] of Object.entries(rereadSecrets(process.env))) {
      if ('error' in result) {
        this.warnOnce(name, `${result.error}: the value in use is kept`);
        continue;
      }
      if (result.value === process.env[name]) {
        this.warned.delete(name);
        continue;
      }
      // Each checked on its own: a value that is not valid keeps its own in use, not the others'.
      try {
        parseEnv({ ...process.env, [name]: result.value });
        changed[name] = result.value;
        this.warned.delete(name);
      } catch (error) {
        // EnvError's message names the variable; a header's value is never in it.
        this.warnOnce(name, `${(error as Error).message}: the value in use is kept`);
      }
    }
    const names = Object.keys(changed) as RotatingSecret[];
    if (names.length === 0) return;
    const key = names.join(',');
    let next: Env;
    try {
      next = parseEnv({ ...process.env, ...changed });
    } catch (error) {
      this.warnOnce(key, `${(error as Error).message}: the value in use is kept`);
      return;
    }
    this.warned.delete(key);
    Object.assign(process.env, changed);
    for (const name of names) {
      TAKE_UP[name](next, this.live);
      this.logger.log(
        `${name} changed in its file: ${FROM[name] ?? 'used from the next request on'}`,
      );
    }
  }

  /**
   * A client certificate (LLM_CLIENT_CERT_FILE, SPEECH_CLIENT_CERT_FILE) and its key renewed in
   * their files (cert-manager, Vault): shown from the next connection on; a certificate and key
   * that are no pair (one file written, not yet the other) keep the pair in use.
   */
  private renewClientTls(owner: ClientTlsOwner): void {
    const holder = this.live[owner];
    const inUse = holder.clientTls;
    if (!inUse) return;
    const setting = CLIENT_TLS[owner].cert;
    let next;
    try {
      next = clientTlsEnv(process.env, owner);
    } catch (error) {
      this.warnOnce(setting, `${(error as Error).message}: the certificate in use is kept`);
      return;
    }
    this.warned.delete(setting);
    if (!next || (next.cert.equals(inUse.cert) && next.key.equals(inUse.key))) return;
    holder.clientTls = next;
    this.logger.log(`${setting} changed in its files: shown from the next connection on`);
    if (next.expired) this.logger.warn(`${setting}: ${next.expired}`);
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.get(key) === message) return;
    this.warned.set(key, message);
    this.logger.warn(message);
  }
}
