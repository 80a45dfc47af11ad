import { Inject, Injectable, Logger } from '@nestjs/common';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Observable } from 'rxjs';
import { llmConfig, type LlmConfig } from '../config/app.config.js';
import { CompletionDecoder } from './completion-decoder.js';
import { postJson, warmConnection } from './http-post.js';
import { requestJson } from './request-json.js';
import { parseJson } from './parsing/json.js';
import { withTraceparent } from '../common/trace-context.js';
import { retryDelayMs } from '../common/retry.js';
import { isNetworkError } from '../common/transient-fault.js';
import { ServerAdaptations, type DefusedSource } from './server-adaptations.js';
import { readStream } from './sse-stream.js';
import { ModelLookup } from './model-lookup.js';
import { headersFor, type Credentials } from './request-headers.js';
import { LlmClient, type LlmEvent, type LlmRequest } from './llm.types.js';
import {
  failureReason,
  httpFault,
  replyNotJson,
  isContextOverflow,
  StreamFault,
  Watchdog,
} from './stream-fault.js';
import { endpointOf, shownUrl } from '../common/server-url.js';

/** How much of an error answer is read: enough for any server's message, which is quoted. */
const ERROR_BODY_CHARS = 64 * 1024;

/** The ids of the calls already in a request's conversation. */
function callIdsIn(request: LlmRequest): Set<string> {
  const ids = new Set<string>();
  for (const m of request.messages)
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) ids.add(c.id);
  return ids;
}

/** The request sends reasoning back with a turn's calls. */
const reasoned = (request: LlmRequest) =>
  request.messages.some((m) => m.role === 'assistant' && m.reasoning_content !== undefined);

/** OpenAI-compatible `/chat/completions` client (vLLM, Ollama, llama.cpp server, OpenAI). */
@Injectable()
export class OpenAiLlmClient extends LlmClient {
  private readonly logger = new Logger(OpenAiLlmClient.name);
  /** What this server was found to refuse, from its HTTP 400s (see ServerAdaptations). */
  private readonly adaptations: ServerAdaptations;
  /** The warning of reasoning shown as the answer has been given (once for the process). */
  private warnedOfStrayThinkEnd = false;

  /** The headers of every request, made again only when a key or header was rotated. */
  private made: { from: Credentials; apiKey: string; headers: Record<string, string> } | undefined;
  private readonly models: ModelLookup;

  /**
   * `credentials`: where the key and extra headers are read at each request (the configuration,
   * which a secret rotated in its file changes; the fallback's part of it).
   */
  constructor(
    @Inject(llmConfig.KEY) private readonly config: LlmConfig,
    private readonly credentials: () => Credentials = () => config,
    /** Counts what had control tokens broken (agent_engine_control_tokens_broken_total). */
    private readonly broken: (source: DefusedSource) => void = () => {},
  ) {
    super();
    this.adaptations = new ServerAdaptations({
      ...(config.defuseSpecialTokens && {
        defused: (source, whose, tokens) => {
          this.broken(source);
          this.warnDefused(whose, tokens);
        },
      }),
      keepReasoning: config.keepReasoning === 'turn',
    });
    this.adaptations.noToolParser = config.serverToolParser === 'off';
    this.models = new ModelLookup(
      config,
      () => this.headers,
      (line) => this.logger.log(line),
    );
  }

  /** Once for each message or tool, when its JSON is first written. */
  private warnDefused(whose: string, tokens: readonly string[]): void {
    const shown = [...new Set(tokens)].slice(0, 5).map((t) => JSON.stringify(t));
    this.logger.warn(
      `${whose} held chat-template control tokens (${shown.join(', ')}): sent broken, as text (LLM_DEFUSE_SPECIAL_TOKENS)`,
    );
  }

  private get headers(): Readonly<Record<string, string>> {
    const now = this.credentials();
    if (this.made?.from.extraHeaders !== now.extraHeaders || this.made.apiKey !== now.apiKey)
      this.made = { from: now, apiKey: now.apiKey, headers: headersFor(now) };
    return this.made.headers;
  }

  stream(request: LlmRequest, signal?: AbortSignal): Observable<LlmEvent> {
    return this.run(request, true, signal);
  }

  chatReply(request: LlmRequest, signal?: AbortSignal): Observable<LlmEvent> {
    return this.run(request, false, signal);
  }

  private run(request: LlmRequest, streaming: boolean, signal?: AbortSignal): Observable<LlmEvent> {
    return new Observable<LlmEvent>((subscriber) => {
      const controller = new AbortController();
      const onAbort = () => controller.abort(new StreamFault('cancelled'));
      if (signal?.aborted) onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      const emitted = { any: false, events: 0 };
      let settled = false;
      const emit = (e: LlmEvent) => {
        if (e.type === 'text' || e.type === 'tool_call') emitted.any = true;
        emitted.events++;
        subscriber.next(e);
      };
      const faultOf = (error: unknown): StreamFault => {
        const reason: unknown = controller.signal.aborted ? controller.signal.reason : error;
        if (reason instanceof StreamFault) return reason;
        return new StreamFault(`LLM request failed: ${failureReason(reason)}`, {
          transient: isNetworkError(reason),
        });
      };
      // A transient fault is retried while nothing of the answer has been emitted: once a token
      // is out (shown, spoken), a second answer would repeat it.
      const attempt = async (n: number): Promise<void> => {
        try {
          await this.execute(request, streaming, controller, emit);
        } catch (error) {
          const fault = faultOf(error);
          const { retries, retryBackoffMs, timeoutSecs } = this.config;
          if (n > retries || !fault.transient || emitted.events > 0 || controller.signal.aborted)
            throw fault;
          const delay = retryDelayMs({
            attempt: n,
            baseMs: retryBackoffMs,
            capMs: timeoutSecs * 1000,
            retryAfterMs: fault.retryAfterMs,
          });
          this.logger.warn(`${fault.message}; retry ${n} of ${retries} in ${delay} ms`);
          await sleep(delay, undefined, { signal: controller.signal });
          return attempt(n + 1);
        }
      };
      attempt(1)
        .catch((error: unknown) => {
          if (subscriber.closed) return;
          const fault = faultOf(error);
          subscriber.next({
            type: 'error',
            message: fault.message,
            retryable: !emitted.any && fault.retryable,
            ...(fault.status ? { status: fault.status } : {}),
            ...(isContextOverflow(fault.message) && { contextOverflow: true }),
          });
        })
        .finally(() => {
          settled = true;
          subscriber.complete();
        });
      return () => {
        signal?.removeEventListener('abort', onAbort);
        // Only a request still running is aborted: a finished one keeps its connection for reuse.
        if (!settled) onAbort();
      };
    });
  }

  /** The request's JSON body, its messages and tool schemas written from their kept JSON. */
  private body(request: LlmRequest, model: string, streaming: boolean): string {
    const body: Record<string, unknown> = { ...this.config.extraBody, model, stream: streaming };
    // Servers refuse `stream_options` (e.g. LLM_EXTRA_BODY's include_usage) on a non-streamed request.
    if (!streaming) delete body.stream_options;
    const { sampling } = request;
    if (sampling) {
      body[this.adaptations.completionTokens ? 'max_completion_tokens' : 'max_tokens'] =
        sampling.maxTokens;
      if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
      if (sampling.stop?.length) body.stop = sampling.stop;
    }
    const messages = this.adaptations.messagesJson(request.messages);
    const written: Record<string, string> = { messages };
    const tools = this.adaptations.tools(request.tools, request.toolChoice ?? 'auto');
    if (tools) [written.tools, body.tool_choice] = [tools.json, tools.choice];
    return requestJson(body, written);
  }

  private async execute(
    request: LlmRequest,
    streaming: boolean,
    controller: AbortController,
    emit: (e: LlmEvent) => void,
  ): Promise<void> {
    const watchdog = new Watchdog(controller, this.config.timeoutSecs * 1000);
    let decoder: CompletionDecoder | undefined;
    try {
      watchdog.arm('connect');
      const model = await this.models.forRequest(request.model, controller.signal);
      let adapted = 0; // how many adaptations the body sent was written with
      const send = () => {
        adapted = this.adaptations.count;
        return this.post(this.body(request, model, streaming), controller.signal, request);
      };
      let response = await send();
      // A 400 that says what the server cannot take (tools, ids, roles): adapted to, sent again;
      // so is a request that met a refusal another one, sent meanwhile, has already taught.
      while (response.status === 400) {
        const text = await response.text(ERROR_BODY_CHARS);
        const learned = this.adaptations.learn(
          text,
          request.toolChoice ?? 'auto',
          reasoned(request),
        );
        if (learned) this.logger.warn(learned);
        else if (this.adaptations.count === adapted) throw httpFault(400, text);
        response = await send();
      }
      if (!response.ok)
        throw httpFault(
          response.status,
          await response.text(ERROR_BODY_CHARS),
          response.body.headers['retry-after'],
        );
      // The tools offered, and those whose calls find them (a deferred tool called by name).
      const known = [...(request.unoffered ?? []), ...request.tools];
      decoder = new CompletionDecoder(new Map(known.map((t) => [t.name, t.parameters])), {
        untaggedReasoning: this.config.untaggedReasoning,
        earlierIds: callIdsIn(request),
      });
      // A server that ignores `stream: true` (some do when tools are given) answers one JSON reply.
      const contentType = response.body.headers['content-type'] ?? '';
      const whole = /^application\/json/i.test(contentType);
      if (!streaming || whole) {
        watchdog.arm('reply');
        const text = await response.text();
        const reply = parseJson(text);
        if (reply !== undefined) return decoder.reply(reply).forEach(emit);
        if (!streaming) throw replyNotJson(contentType, text);
        // Not JSON after all: a stream sent under the wrong type.
        return await readStream(Readable.from([text]), contentType, decoder, watchdog, emit);
      }
      await readStream(response.body, contentType, decoder, watchdog, emit);
    } finally {
      watchdog.stop();
      if (decoder?.strayThinkEnd) this.warnOfStrayThinkEnd();
    }
  }

  /** Once for the process: the model's reasoning reaches users, and what to set. */
  private warnOfStrayThinkEnd(): void {
    if (this.warnedOfStrayThinkEnd || this.config.untaggedReasoning) return;
    this.warnedOfStrayThinkEnd = true;
    this.logger.warn(
      `the model at ${shownUrl(this.config.baseUrl)} wrote a </think> with no <think> before it: its reasoning, which the chat template opens in the prompt, reached the user as the answer. Run the server with a reasoning parser, or (for LLM_BASE_URL's model) set LLM_UNTAGGED_REASONING=true`,
    );
  }

  private post(body: string, signal: AbortSignal, { traceId, span }: LlmRequest) {
    return postJson(
      endpointOf(this.config.baseUrl, '/chat/completions'),
      withTraceparent(this.headers, traceId, span),
      body,
      signal,
      this.config.clientTls,
    );
  }

  /** Its `GET /models`, which every OpenAI-compatible server answers cheaply. */
  override warm(): void {
    const { baseUrl, clientTls } = this.config;
    warmConnection(endpointOf(baseUrl, '/models'), this.headers, clientTls);
  }

  /** See ModelLookup.check. */
  override check(signal: AbortSignal): Promise<string | undefined> {
    return this.models.check(signal);
  }
}
