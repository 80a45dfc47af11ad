import { HttpService } from '@nestjs/axios';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { withTraceparent } from '../common/trace-context.js';
import { STATUS_CODES } from 'node:http';
import type { Readable } from 'node:stream';
import { firstValueFrom } from 'rxjs';
import { toolsConfig, type ToolsConfig } from '../config/app.config.js';
import { offMetadata } from './address-guard.js';
import type { ClientCertificate } from './client-certificate.js';
import { buildHttpRequest, type BuiltRequest } from './http-request-builder.js';
import { resultText, toolErrors } from './tool-errors.js';
import { mistaken, ToolExecutor, type ToolInvocation, type ToolOutcome } from './tool-executor.js';
import { maskSecrets } from './tool-secrets.js';
import { responseText } from './response-text.js';
import { applyQuery, serviceError } from './response-query.js';
import { isSafe, type Tool } from './tool-definition.js';
import { backendDown, notActed, toolRetryDelay, type AttemptFailure } from './tool-retry.js';
import { readLimited } from '../common/response-body.js';
import { errorCode, failureText, timedOut, withoutContentType } from './http-io.js';
import type { BreakerRun } from './tool-breaker.js';
import { ToolGuards } from './tool-guards.service.js';
import { ResultCache, SharedResults } from './result-cache.js';
import { ClusterLink } from '../cluster/cluster-link.js';
import { sharedShelf } from '../cluster/shelf.js';
import { SessionStore } from '../sessions/session-store.js';
import { OAuth2Tokens } from './oauth2.js';
import { htmlText, markupFor } from './html-text.js';
import { privateCaHint } from '../common/connection-error.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { withTimeout } from '../common/timeout-signal.js';

interface RawResponse {
  status: number;
  statusText: string;
  body: string;
  /** `body` is a note of what the response held, not its content. */
  binary: boolean;
  /** The `Retry-After` header, when the server sent one. */
  retryAfter?: string;
}

/** What bounds one tool request: the turn's signal and the tool's timeout. */
interface Limits {
  outer: AbortSignal;
  timeoutSecs: number;
  /** Headers a redirect to another origin does not get: those the definition fills from a secret or a session variable. */
  credentials: string[];
  /** The tool's client certificate, for a server that asks for one. */
  certificate?: ClientCertificate;
  /** How much of an HTML page's markup is read for its text (see markupFor). */
  markupChars: number;
}

/** Executes HTTP tools (seed §3–§6): placeholders, verb routing, limits, error texts. */
@Injectable()
export class HttpToolExecutor extends ToolExecutor {
  private readonly logger = new Logger(HttpToolExecutor.name);
  /** Results of tools with `cache_secs`: with a Redis session store, for every replica too. */
  private readonly cache: ResultCache;

  constructor(
    private readonly http: HttpService,
    @Inject(toolsConfig.KEY) private readonly config: ToolsConfig,
    private readonly metrics: EngineMetrics,
    private readonly guards: ToolGuards,
    private readonly tokens: OAuth2Tokens,
    store: SessionStore,
    cluster: ClusterLink,
  ) {
    super();
    // Shared through Redis, else (ENGINE_PROCESSES) through the primary.
    const shelf = sharedShelf(store, cluster, 'results');
    this.cache = new ResultCache(shelf && new SharedResults(shelf));
  }

  async execute(call: ToolInvocation): Promise<ToolOutcome> {
    const tool = call.snapshot.byName.get(call.name);
    if (!tool) return mistaken('unknown_tool', toolErrors.unknownTool(call.name));
    if (call.rawArguments !== undefined)
      return mistaken('invalid_arguments', toolErrors.notAnObject(call.rawArguments));
    const request = buildHttpRequest(tool, call.args, call.context?.variables);
    if ('error' in request) return this.fail(request.error, true);
    const cacheKey = tool.cacheSecs ? this.cache.keyOf(tool, request) : undefined;
    const cached = cacheKey && (await this.cache.find(cacheKey));
    if (cached !== undefined) {
      this.metrics.toolCacheHit(tool.name);
      return { ok: true, text: cached, cached: true };
    }
    const outcome = await this.deliver(call, tool, this.outgoing(call, tool, request));
    if (cacheKey && outcome.ok) this.cache.keep(cacheKey, outcome.text, tool.cacheSecs!);
    return outcome;
  }

  /** The request as sent: with a fresh idempotency key (kept on retries) and the turn's traceparent. */
  private outgoing(call: ToolInvocation, tool: Tool, request: BuiltRequest): BuiltRequest {
    const headers = tool.idempotencyHeader
      ? { ...request.headers, [tool.idempotencyHeader]: randomUUID() }
      : request.headers;
    return {
      ...request,
      headers: withTraceparent(headers, call.context?.traceId, call.context?.span),
    };
  }

  /** Sends `request` within the tool's limits (its turn, its circuit), then its retries. */
  private deliver(call: ToolInvocation, tool: Tool, request: BuiltRequest): Promise<ToolOutcome> {
    const target = `${tool.method} ${tool.url}`;
    return this.guards.run(call, tool, target, () =>
      this.sendWithRetries(call, tool, request, target),
    );
  }

  /** The call's request, sent again after a transient failure as the tool allows. */
  private async sendWithRetries(
    call: ToolInvocation,
    tool: Tool,
    request: BuiltRequest,
    target: string,
  ): Promise<BreakerRun<ToolOutcome>> {
    const timeoutSecs = tool.timeoutSecs ?? this.config.timeoutSecs;
    const credentials = Object.entries(tool.headers)
      .filter(([, template]) => template.includes('${'))
      .map(([name]) => name);
    const limits = {
      outer: call.signal,
      timeoutSecs,
      credentials,
      certificate: tool.clientCertificate,
      markupChars: markupFor(tool.resultMaxChars ?? this.config.resultMaxChars),
    };
    const retries = tool.retries ?? this.config.retries;
    for (let attempt = 1; ; attempt++) {
      const { outcome, failure } = await this.attempt(tool, request, limits);
      const delay =
        attempt > retries || call.signal.aborted
          ? undefined
          : toolRetryDelay(failure, {
              safe: isSafe(tool),
              explicit: tool.retries !== undefined || tool.idempotencyHeader !== undefined,
              attempt,
              baseMs: this.config.retryBackoffMs,
              capMs: timeoutSecs * 1000,
            });
      const last = {
        value: outcome,
        backendDown: backendDown(failure, call),
        cancelled: call.signal.aborted,
      };
      if (delay === undefined) return last;
      const why = 'status' in failure ? `HTTP ${failure.status}` : failure.code;
      this.logger.warn(
        `tool '${call.name}': ${why}; retry ${attempt} of ${retries} in ${delay} ms`,
      );
      this.metrics.toolRetry(call.name);
      // A retry is a request too: within the tool's rate_limit, or not sent (the model reads the
      // last attempt's outcome).
      const sent = await sleep(delay, undefined, { signal: call.signal }).then(
        () => this.guards.retryMoment(call, tool, target, timeoutSecs * 1000),
        () => false,
      );
      if (call.signal.aborted) {
        const value = this.fail(toolErrors.requestFailed('cancelled'));
        return { value, backendDown: false, cancelled: true };
      }
      if (!sent) return last;
    }
  }

  /** One request of a call: what the model would read, and how it failed (for a retry). */
  private async attempt(
    tool: Tool,
    request: BuiltRequest,
    limits: Limits,
  ): Promise<{ outcome: ToolOutcome; failure: AttemptFailure }> {
    const { name } = tool;
    const secrets = () => this.tokens.secretsOf(tool);
    const told = (outcome: ToolOutcome, failure: AttemptFailure) => ({
      outcome: notActed(failure) ? { ...outcome, notActed: true } : outcome,
      failure,
    });
    try {
      const response = await this.authorised(tool, request, limits);
      // A backend that echoes its request (headers, URL) must not hand a secret to the model.
      const body = maskSecrets(response.body, secrets());
      const outcome = this.format({ ...response, body }, tool);
      return told(outcome, { status: response.status, retryAfter: response.retryAfter });
    } catch (error) {
      const detail = maskSecrets(failureText(error, limits.outer, limits.timeoutSecs), secrets());
      this.logger.warn(`tool '${name}' request failed: ${detail}${privateCaHint(error)}`);
      const outcome = this.fail(toolErrors.requestFailed(detail));
      return told(outcome, { code: errorCode(error), timedOut: timedOut(error) });
    }
  }

  /** Sends `request`; a tool with `oauth2` sends it with a bearer token (see OAuth2Tokens). */
  private authorised(tool: Tool, request: BuiltRequest, limits: Limits): Promise<RawResponse> {
    if (!tool.oauth2) return this.send(request, limits);
    return this.tokens.authorised(
      tool.oauth2,
      limits.timeoutSecs * 1000,
      (token) =>
        this.send(
          { ...request, headers: { ...request.headers, Authorization: `Bearer ${token}` } },
          limits,
        ),
      (response) => response.status === 401 && !limits.outer.aborted,
    );
  }

  /** A failed call; `notSent` when no request went out. */
  private fail(text: string, notSent = false): ToolOutcome {
    return notSent ? { ok: false, text, notActed: true } : { ok: false, text };
  }

  private format(response: RawResponse, tool: Tool): ToolOutcome {
    const statusLine =
      `${response.status} ${response.statusText || STATUS_CODES[response.status] || ''}`.trim();
    if (response.status < 200 || response.status > 299) {
      return this.fail(
        toolErrors.httpStatus(
          statusLine,
          resultText(
            response.binary ? `(${response.body})` : response.body,
            tool.resultMaxChars ?? this.config.resultMaxChars,
          ),
        ),
      );
    }
    if (response.body === '') return { ok: true, text: `HTTP ${statusLine} (empty body)` };
    if (response.binary) return { ok: true, text: `HTTP ${statusLine} (${response.body})` };
    let text = response.body;
    const error = tool.errorQuery && serviceError(tool.errorQuery, text);
    if (error !== undefined) {
      this.logger.warn(
        `tool '${tool.name}': the service answered HTTP ${response.status} with an error (error_query ${JSON.stringify(tool.errorQuery!.expression)})`,
      );
      // As a refusal (4xx): the call failed, did nothing, is not kept nor retried.
      const maxChars = tool.resultMaxChars ?? this.config.resultMaxChars;
      return {
        ...this.fail(toolErrors.httpStatus(statusLine, resultText(error, maxChars))),
        notActed: true,
      };
    }
    if (tool.responseQuery) {
      const picked = applyQuery(tool.responseQuery, text);
      if (picked.problem)
        this.logger.warn(
          `tool '${tool.name}': response_query ${JSON.stringify(tool.responseQuery.expression)} not applied (${picked.problem}): the model reads the whole response`,
        );
      text = picked.text;
    }
    return {
      ok: true,
      text: resultText(text, tool.resultMaxChars ?? this.config.resultMaxChars),
    };
  }

  private async send(
    request: BuiltRequest,
    { outer, timeoutSecs, credentials, certificate, markupChars }: Limits,
  ): Promise<RawResponse> {
    // Never to cloud metadata addresses, by name or by redirect: a tool's backend
    // that redirects there would hand the instance's credentials to the model.
    const guard = offMetadata(request.url, certificate);
    const timeoutMs = timeoutSecs * 1000;
    const signal = withTimeout(outer, timeoutMs);
    const response = await firstValueFrom(
      this.http.request<Readable>({
        method: request.method,
        url: request.url,
        // No body, no Content-Type (axios would give a POST without one a form's).
        headers: request.body === undefined ? withoutContentType(request.headers) : request.headers,
        data: request.body,
        responseType: 'stream',
        ...guard,
        // Authorization and Cookie are never sent on to another origin; nor are these.
        sensitiveHeaders: credentials,
        timeout: timeoutMs,
        signal,
        validateStatus: () => true,
        transformRequest: [(data: unknown) => data],
      }),
    );
    const read = await readLimited(response.data, this.config.maxResponseBytes, signal);
    const contentType = response.headers['content-type'] as string | undefined;
    const { text, binary, html } = responseText({ ...read, contentType });
    return {
      status: response.status,
      statusText: String(response.statusText ?? ''),
      body: html ? await htmlText(text, markupChars) : text,
      binary,
      retryAfter: response.headers['retry-after'] as string | undefined,
    };
  }
}
