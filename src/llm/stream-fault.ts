import { EgressProxyError } from '../common/egress-error.js';
import {
  connectionErrorCode,
  PRIVATE_CA_HINT,
  untrustedCertificate,
} from '../common/connection-error.js';
import { excerpt } from '../common/http-text.js';
import { retryAfterMs } from '../common/retry.js';
import { parseJson } from './parsing/json.js';
import { isTransientStatus } from '../common/transient-fault.js';
/**
 * Why an LLM request failed, and whether sending it again is worth it. Pure: no Nest import.
 */
export interface FaultDetails {
  /** The HTTP status the server answered, when it answered one. */
  status?: number;
  /**
   * The server was overloaded, restarting or unreachable (HTTP 408, 409, 429, 5xx; a refused or
   * reset connection; a stream cut off): the request is sent again at once (LLM_RETRIES).
   */
  transient?: boolean;
  /** A phase took longer than LLM_TIMEOUT_SECS: a new request may succeed, but is not sent. */
  timedOut?: boolean;
  /** The server's `Retry-After`, in ms, when it sent one. */
  retryAfterMs?: number;
}

export class StreamFault extends Error {
  readonly status?: number;
  readonly transient: boolean;
  readonly timedOut: boolean;
  readonly retryAfterMs?: number;

  constructor(message: string, details: FaultDetails = {}) {
    super(message);
    this.status = details.status;
    this.transient = details.transient ?? false;
    this.timedOut = details.timedOut ?? false;
    this.retryAfterMs = details.retryAfterMs;
  }

  /**
   * A new, identical request may succeed: a transient fault or a timeout. Not an error the server
   * wrote into the stream, nor a request it refused, nor a stream that is not SSE.
   */
  get retryable(): boolean {
    return this.transient || this.timedOut;
  }
}

/**
 * How servers say that the prompt does not fit the model's context: OpenAI (and Groq, DeepSeek,
 * Mistral), vLLM (old and new wording, and its negative max_tokens when the prompt leaves no
 * room), SGLang, llama.cpp's server, TGI, Gemini's and Anthropic's compatible endpoints; and a
 * proxy's HTTP 413 for a request body over its limit (nginx's `client_max_body_size`), which a
 * shorter history fixes as well.
 */
const CONTEXT_OVERFLOW =
  /context_length_exceeded|context_window_exceeded|exceed_context_size|maximum context length|context length is only|exceeds? the (?:available )?context|context window|prompt is too long|reduce the length of the (?:input|messages)|longer than the maximum model length|input (?:length|token count) .{0,40}exceeds|inputs` tokens \+ `max_new_tokens` must be|max_tokens must be at least 1, got -\d|request entity too large|payload too large/i;

/** The server refused the request because the conversation is longer than the model's context. */
export function isContextOverflow(message: string): boolean {
  return CONTEXT_OVERFLOW.test(message);
}

/**
 * Aborts when a phase (connect + first byte, then each gap between chunks) takes too long.
 * Re-arming only moves a deadline; one timer checks it, so a busy stream costs no timer churn.
 */
export class Watchdog {
  private timer: NodeJS.Timeout | undefined;
  private deadline = 0;
  private phase = '';
  private detail = '';
  constructor(
    private readonly controller: AbortController,
    private readonly ms: number,
  ) {}
  arm(phase: string): void {
    this.phase = phase;
    this.detail = '';
    this.deadline = performance.now() + this.ms;
    this.timer ??= setTimeout(() => this.check(), this.ms);
  }
  /** What came meanwhile that does not hold it off (said if it fires). */
  note(detail: string): void {
    this.detail = `, ${detail}`;
  }
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
  private check(): void {
    const left = this.deadline - performance.now();
    if (left > 1) {
      this.timer = setTimeout(() => this.check(), left);
      return;
    }
    this.timer = undefined;
    this.controller.abort(
      new StreamFault(`LLM server timed out (${this.phase}${this.detail}, ${this.ms / 1000}s)`, {
        timedOut: true,
      }),
    );
  }
}

/**
 * Why a request failed, for the client as well as the log: a connection's failure by its code
 * alone (`connect ECONNREFUSED 10.0.3.4:8000` would show the client where the server is).
 */
export function failureReason(error: unknown): string {
  const certificate = untrustedCertificate(error);
  if (certificate)
    return `the LLM server's TLS certificate is not trusted (${certificate}; ${PRIVATE_CA_HINT})`;
  if (error instanceof EgressProxyError) return error.message;
  const code = connectionErrorCode(error);
  if (code) return `no connection to the LLM server (${code})`;
  return (error as Error | undefined)?.message ?? String(error);
}

/** Said of an answer that a web server, not the API, gave: the base URL may lack the API's path. */
export const BASE_URL_HINT = " (is the server's base URL the API's, ending in /v1?)";

/**
 * The fault of a stream that ended unfinished: cut off (before [DONE], and before a finish_reason
 * when it ended whole), or (`head`, what it began with, when it sent no event at all) no stream.
 */
export function unfinishedStream(contentType: string, head: string): StreamFault {
  if (head.trim() === '')
    return new StreamFault('LLM stream closed before [DONE]', { transient: true });
  const hint = /^text\/html/i.test(contentType) ? BASE_URL_HINT : '';
  return new StreamFault(
    `the LLM server's answer (${contentType || 'no Content-Type'}) held no event: ${excerpt(head)}${hint}`,
    { transient: true },
  );
}

/** The fault of a reply asked for whole (not streamed) that is not JSON: a proxy's page, say. */
export function replyNotJson(contentType: string, text: string): StreamFault {
  const hint = /^text\/html/i.test(contentType) ? BASE_URL_HINT : '';
  return new StreamFault(
    `the LLM server's answer (${contentType || 'no Content-Type'}) is not JSON: ${excerpt(text)}${hint}`,
    { transient: true },
  );
}

/** The fault of an HTTP error answer: its status, and the server's message when it gave one. */
export function httpFault(status: number, text: string, retryAfter?: string | null): StreamFault {
  const message = errorMessageOf(parseJson(text));
  // No such path, in a web server's words rather than the API's: the base URL is not the API's.
  const hint = message === undefined && (status === 404 || status === 405) ? BASE_URL_HINT : '';
  const said = `${(message ?? text).slice(0, 500)}${hint}`;
  return new StreamFault(`LLM server answered HTTP ${status}: ${said}`, {
    status,
    transient: isTransientStatus(status),
    retryAfterMs: retryAfterMs(retryAfter ?? undefined),
  });
}

/** What a stream or a reply said is an error, in the shapes servers use (OpenAI, vLLM, SGLang, xAI). */
export function errorMessageOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (!error) return undefined;
  if (typeof error === 'string') return error;
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' ? message : JSON.stringify(error);
}
