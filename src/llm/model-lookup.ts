/**
 * The model requests name: LLM_MODEL, or the first model `GET {LLM_BASE_URL}/models` lists. That
 * request is made once the engine has started (the first turn would make it anyway) and its
 * answer kept, so that a wrong address or key is in the log before the first caller meets it.
 * Only warnings: a server that is down now may be up by the first turn. Pure: no Nest import.
 */
import { egressFetch } from '../common/egress.js';
import { PRIVATE_CA_HINT, untrustedCertificate } from '../common/connection-error.js';
import { excerpt, mediaType } from '../common/http-text.js';
import { boundedText, ERROR_BODY_BYTES } from '../common/response-body.js';
import type { LlmConfig } from '../config/app.config.js';
import { MAX_BODY_CHARS } from './http-post.js';
import { httpFault, StreamFault } from './stream-fault.js';
import { endpointOf, shownUrl } from '../common/server-url.js';

export class ModelLookup {
  private model: Promise<string> | undefined;

  constructor(
    private readonly config: Pick<
      LlmConfig,
      'baseUrl' | 'model' | 'models' | 'timeoutSecs' | 'fallback' | 'clientTls'
    >,
    /** The headers of a request, at the time of the request (a rotated key). */
    private readonly headers: () => Readonly<Record<string, string>>,
    private readonly log: (line: string) => void,
  ) {}

  /** `chosen` (a session's, when one of LLM_MODELS), else `resolve`'s. */
  forRequest(chosen: string | undefined, signal: AbortSignal): Promise<string> {
    if (chosen !== undefined && this.config.models.includes(chosen)) return Promise.resolve(chosen);
    return this.resolve(signal);
  }

  /**
   * LLM_MODEL, or the first model `GET /models` lists, asked once and kept (asked again after a
   * failure). The request is shared by every caller meanwhile: each stops waiting when its own
   * `signal` aborts, and the request itself when LLM_TIMEOUT_SECS runs out.
   */
  resolve(signal: AbortSignal): Promise<string> {
    if (this.config.model) return Promise.resolve(this.config.model);
    this.model ??= (async () => {
      // The list read within the request's time too.
      const timeout = AbortSignal.timeout(this.config.timeoutSecs * 1000);
      const res = await egressFetch(
        endpointOf(this.config.baseUrl, '/models'),
        { headers: this.headers(), signal: timeout },
        this.config.clientTls,
      );
      if (!res.ok) {
        const page = (await boundedText(res, ERROR_BODY_BYTES, timeout)).text;
        throw httpFault(res.status, page, res.headers.get('retry-after'));
      }
      const { text, more } = await boundedText(res, MAX_BODY_CHARS, timeout);
      if (more)
        throw new NoModelList(
          `GET /models was answered with more than ${MAX_BODY_CHARS / 1048576} MiB, not a list of models`,
        );
      let listed: { data?: { id?: string }[] } | undefined;
      try {
        listed = JSON.parse(text) as typeof listed;
      } catch {
        // A page (a proxy's, a login's, a web UI at the server's root) where the list should be.
        const type = mediaType(res.headers.get('content-type')).type || 'no Content-Type';
        throw new NoModelList(`GET /models was answered with ${type}, not JSON: ${excerpt(text)}`);
      }
      const id = listed?.data?.[0]?.id;
      if (!id) throw new StreamFault('LLM_MODEL is empty and GET /models listed no model');
      this.log(`using model ${id} (first of GET /models)`);
      return id;
    })();
    this.model.catch(() => (this.model = undefined));
    return untilAborted(this.model, signal);
  }

  /**
   * Without LLM_MODEL, asks `GET /models` at start-up, as the first turn would (its answer is
   * kept for the turns): what kept it from giving a model, or undefined. With LLM_MODEL set,
   * nothing is asked before the first turn. Never throws.
   */
  async check(signal: AbortSignal): Promise<string | undefined> {
    if (this.config.model) return undefined;
    try {
      await this.resolve(signal);
      return undefined;
    } catch (error) {
      if (signal.aborted) return undefined;
      return modelsProblem(error, this.config.baseUrl, this.config.fallback !== undefined);
    }
  }
}

/** GET /models answered with something that is no list of models at all. */
class NoModelList extends StreamFault {}

/**
 * The warning for what kept `GET {baseUrl}/models` from giving a model; `fallback`: a fallback
 * server takes the requests while this one cannot be reached.
 */
export function modelsProblem(error: unknown, baseUrl: string, fallback = false): string {
  const at = `the LLM server at ${shownUrl(baseUrl)}`;
  if (error instanceof StreamFault && error.status !== undefined) {
    if (error.status === 401 || error.status === 403)
      return `${at} refused the engine's credentials (HTTP ${error.status} to GET /models): check LLM_API_KEY or LLM_EXTRA_HEADERS`;
    return `${at} answered HTTP ${error.status} to GET /models, and LLM_MODEL is empty: set LLM_MODEL`;
  }
  if (error instanceof NoModelList)
    return `${at}: ${error.message} (is LLM_BASE_URL the API's, ending in /v1?), and LLM_MODEL is empty: set LLM_MODEL`;
  if (error instanceof StreamFault)
    return `${at} lists no model, and LLM_MODEL is empty: set LLM_MODEL`;
  const meanwhile = fallback
    ? 'requests go to LLM_FALLBACK_BASE_URL until it answers'
    : 'turns fail until it answers';
  const certificate = untrustedCertificate(error);
  if (certificate)
    return `${at} has a TLS certificate the engine does not trust (${certificate}; ${PRIVATE_CA_HINT}): ${meanwhile}`;
  return `${at} cannot be reached (${unreachableReason(error)}): ${meanwhile}`;
}

/** Why a request did not reach the server, in a few words (`ECONNREFUSED`, `timed out`). */
export function unreachableReason(error: unknown): string {
  const err = error as {
    name?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  if (err?.name === 'TimeoutError') return 'timed out';
  return err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(error);
}

/** `promise`, or the signal's reason as soon as it is aborted (a wait shared with other callers). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
