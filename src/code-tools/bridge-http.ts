/**
 * A `ces_requests` request from a code tool, carried out for it: `${TOOL_SECRET_*}` references
 * filled in (only those its own source names), the request sent by safeHttp, and a key the server
 * echoes masked in what the code gets back. Pure: no Nest import.
 */
import { withTraceparent, type SpanRef } from '../common/trace-context.js';
import {
  fillBytes,
  fillSecrets,
  maskBytes,
  maskSecrets,
  secretsNamedIn,
} from '../tools/tool-secrets.js';
import {
  HttpFailure,
  safeHttp,
  type PyHttpHop,
  type PyHttpRequest,
  type SafeHttpOptions,
} from './safe-http.js';

/** A value as the characters of a JSON string (quotes and backslashes escaped). */
const inJson = (value: string) => JSON.stringify(value).slice(1, -1);

export interface BridgeHttpContext {
  /** Call id → the source of the code tool it runs (whose named secrets its requests may use). */
  sources: ReadonlyMap<string, string>;
  /** The call's trace, for the request's traceparent. */
  trace?: { traceId?: string; span?: SpanRef };
  options: Omit<SafeHttpOptions, 'secrets'>;
  signal: AbortSignal;
}

/** The answer to `payload` the runtime reads: the response, or `{error, kind}`. Never rejects. */
export async function bridgeHttp(
  payload: Record<string, unknown>,
  { sources, trace, options, signal }: BridgeHttpContext,
): Promise<Record<string, unknown>> {
  const secrets: Record<string, string> = {};
  try {
    const {
      url,
      params,
      form,
      data_b64: bytes,
      json_text: jsonText,
      caller,
      ...rest
    } = payload as unknown as PyHttpRequest & { caller?: string };
    const code = sources.get(String(caller)) ?? '';
    const available = { env: process.env, named: secretsNamedIn(code) };
    // In the URL, the query and the form (encoded by the runtime), a secret goes encoded too;
    // in a body of bytes (an upload), as its UTF-8 bytes.
    const encoded = (text: string | null | undefined) =>
      text && fillSecrets(text, available, secrets, encodeURIComponent);
    const filled = {
      ...fillSecrets(rest, available, secrets),
      url: fillSecrets(url, available, secrets, encodeURIComponent),
      params: encoded(params),
      form: encoded(form),
      data_b64: bytes && fillBytes(bytes, available, secrets),
      // In JSON the runtime wrote, a secret goes as a JSON string's characters.
      json_text: jsonText && fillSecrets(jsonText, available, secrets, inJson),
    };
    const headers = withTraceparent({ ...(filled.headers ?? {}) }, trace?.traceId, trace?.span);
    const response = await safeHttp(
      { ...filled, headers },
      { ...options, secrets: Object.values(secrets) },
      signal,
    );
    const mask = (text: string) => maskSecrets(text, secrets);
    const maskedHop = (hop: PyHttpHop): PyHttpHop => ({
      ...hop,
      url: mask(hop.url),
      headers: Object.fromEntries(Object.entries(hop.headers).map(([k, v]) => [k, mask(v)])),
      cookies: Object.fromEntries(Object.entries(hop.cookies).map(([k, v]) => [k, mask(v)])),
    });
    return {
      ...response,
      ...maskedHop(response),
      text: mask(response.text),
      ...(response.content_b64 !== undefined && {
        content_b64: maskBytes(response.content_b64, secrets),
      }),
      ...(response.history && { history: response.history.map(maskedHop) }),
    };
  } catch (error) {
    // The kind picks the exception ces_requests raises (Timeout, ConnectionError, …).
    const kind = error instanceof HttpFailure ? error.kind : undefined;
    return { error: maskSecrets((error as Error).message, secrets), ...(kind && { kind }) };
  }
}
