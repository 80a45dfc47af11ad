import { registerAs } from '@nestjs/config';
import { parseEnv } from './env.js';

/** One `registerAs` namespace per module; each reads the same validated environment. */
export const appConfig = registerAs('app', () => {
  const env = parseEnv(process.env);
  return {
    port: env.port,
    logLevel: env.logLevel,
    ws: env.ws,
    adminApiKey: env.adminApiKey,
    corsOrigins: env.corsOrigins,
  };
});
export const llmConfig = registerAs('llm', () => parseEnv(process.env).llm);
export const toolsConfig = registerAs('tools', () => parseEnv(process.env).tools);
export const speechConfig = registerAs('speech', () => parseEnv(process.env).speech);
export const metricsConfig = registerAs('metrics', () => parseEnv(process.env).metrics);
export const sessionsConfig = registerAs('sessions', () => parseEnv(process.env).sessions);
export const tracingConfig = registerAs('tracing', () => parseEnv(process.env).tracing);
export const codeToolsConfig = registerAs('codeTools', () => parseEnv(process.env).codeTools);

export type AppConfig = ReturnType<typeof appConfig>;
export type LlmConfig = ReturnType<typeof llmConfig>;
export type ToolsConfig = ReturnType<typeof toolsConfig>;
export type SpeechConfig = ReturnType<typeof speechConfig>;
export type MetricsConfig = ReturnType<typeof metricsConfig>;
export type SessionsConfig = ReturnType<typeof sessionsConfig>;
export type TracingConfig = ReturnType<typeof tracingConfig>;
export type CodeToolsConfig = ReturnType<typeof codeToolsConfig>;
