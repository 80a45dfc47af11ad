/** The headers of every request to an LLM server. Pure: no Nest import. */
import type { LlmConfig } from '../config/app.config.js';

/** What a server is told of who asks: its key and extra headers (LLM_API_KEY, LLM_EXTRA_HEADERS). */
export type Credentials = Pick<LlmConfig, 'apiKey' | 'extraHeaders'>;

/** The engine's headers, and LLM_EXTRA_HEADERS replacing them whatever their case (not sent twice). */
export function headersFor(config: Credentials): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
  };
  if (config.apiKey) headers.Authorization = `Bearer ${config.apiKey}`;
  const extra = config.extraHeaders;
  const replaced = new Set(Object.keys(extra).map((k) => k.toLowerCase()));
  for (const key of Object.keys(headers)) if (replaced.has(key.toLowerCase())) delete headers[key];
  return { ...headers, ...extra };
}
