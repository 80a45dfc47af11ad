import type { INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/bootstrap.js';
import { egressInForce, useEgress, type EgressSettings } from '../../src/common/egress.js';

const ENGINE_VARS =
  /^(PORT|LLM_|WS_|LOG_|TTS_|STT_|SPEECH_|CODE_TOOLS_|AGENT_NAME|ADMIN_API_KEY|SHUTDOWN_|ENGINE_|SESSION_|METRICS_|EGRESS_|CORS_|OTEL_|VAD_|TWILIO_|DTMF_)/;

/**
 * The real engine on a free loopback port, configured only through its environment. Stopped, it
 * puts back the environment and the process-wide proxy settings (EGRESS_PROXY) it found: the spec
 * files run after it in the same thread see neither.
 */
export class Engine {
  private constructor(
    readonly app: INestApplication,
    readonly httpUrl: string,
    readonly wsUrl: string,
    private readonly savedEnv: NodeJS.ProcessEnv,
    private readonly savedEgress: EgressSettings,
  ) {}

  static async start(env: Record<string, string>): Promise<Engine> {
    const savedEnv = { ...process.env };
    const savedEgress = egressInForce();
    for (const key of Object.keys(process.env)) if (ENGINE_VARS.test(key)) delete process.env[key];
    Object.assign(process.env, { LOG_LEVEL: 'error', TTS_PROVIDER: 'none' }, env);
    let app: INestApplication | undefined;
    try {
      app = await createApp();
      await app.listen(0, '127.0.0.1');
    } catch (error) {
      // A start-up that fails (a bad setting, a bad tools file) must not leave its clients open
      // (Redis's would keep the test run from ending), nor its settings in force.
      await app?.close().catch(() => undefined);
      process.env = savedEnv;
      useEgress(savedEgress);
      throw error;
    }
    const port = (app.getHttpServer().address() as AddressInfo).port;
    const url = `127.0.0.1:${port}`;
    return new Engine(app, `http://${url}`, `ws://${url}/ws`, savedEnv, savedEgress);
  }

  private stopped = false;

  /** Stops the engine (a second call, after a test stopped it, does nothing). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.app.close();
    process.env = this.savedEnv;
    useEgress(this.savedEgress);
  }
}

/**
 * The engine's speech through one OpenAI-compatible server (`/audio/speech`, `/audio/transcriptions`).
 * No speech kept (TTS_CACHE_MB): the fake server says a text at the length each test sets, so
 * speech kept from an earlier test would be stale (test/speech-cache.e2e-spec.ts keeps it).
 */
export const openAiSpeech = (base: string) => ({
  TTS_PROVIDER: 'openai',
  TTS_BASE_URL: base,
  STT_BASE_URL: base,
  TTS_CACHE_MB: '0',
});

/**
 * Why the engine refuses to start with `env`: its error's message (the built engine prints it and
 * exits 1, test/startup.e2e-spec.ts). Fails the test if it starts.
 */
export async function startError(env: Record<string, string>): Promise<string> {
  let engine: Engine;
  try {
    engine = await Engine.start(env);
  } catch (error) {
    return (error as Error).message;
  }
  await engine.stop();
  throw new Error('the engine started');
}
