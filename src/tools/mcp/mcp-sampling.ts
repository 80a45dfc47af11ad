/**
 * MCP sampling (`sampling/createMessage`): a server asks its client's model for a completion
 * (FastMCP's `ctx.sample()`, the SDK's `createMessage`) while it runs a call: a summary of what
 * it fetched, a classification, a draft. Offered to the servers of tools that allow it
 * (`"sampling": true`), answered by the engine's LLM server without streaming and without
 * tools, in text. Pure: no Nest import.
 */
import { lastValueFrom, toArray } from 'rxjs';
import type { ChatMessage, LlmClient, LlmRequest, LlmUsage } from '../../llm/llm.types.js';
import type { EngineLogLevel } from './mcp-server-log.js';

/** The longest completion a server gets when its tool sets no `sampling_max_tokens`. */
export const DEFAULT_SAMPLING_MAX_TOKENS = 1024;
/**
 * Completions asked by MCP servers that an engine process runs at once: a server asking for
 * more (a loop gone wrong, a flood) must not take the model from the conversations.
 */
export const MAX_SAMPLINGS_AT_ONCE = 8;

/** What a server asks (the params of `sampling/createMessage`, as far as the engine reads them). */
export interface SamplingParams {
  messages: { role: string; content: unknown }[];
  systemPrompt?: string;
  temperature?: number;
  maxTokens: number;
  stopSequences?: string[];
  tools?: unknown;
}

/** The completion as MCP gives it back (`CreateMessageResult`). */
export interface SamplingResult {
  [key: string]: unknown;
  model: string;
  role: 'assistant';
  content: { type: 'text'; text: string };
  stopReason?: string;
}

/**
 * The answer: the completion; or why the request was `refused` (the server asked what the
 * engine does not do: a JSON-RPC "invalid params") or why it `failed` (an "internal error": the
 * LLM server's error, the engine's limit).
 */
export type SamplingAnswer = { result: SamplingResult } | { refused: string } | { failed: string };

/** The completion request for `params`, at most `maxTokens` long; or why it cannot be made. */
export function samplingRequest(
  params: SamplingParams,
  maxTokens: number,
  model?: string,
): LlmRequest | { refused: string } {
  if (params.tools !== undefined)
    return { refused: 'the engine offers its model no tools in sampling' };
  const messages: ChatMessage[] = [];
  if (params.systemPrompt) messages.push({ role: 'system', content: params.systemPrompt });
  for (const message of params.messages) {
    if (message.role !== 'user' && message.role !== 'assistant')
      return { refused: `a message of role "${message.role}": only user and assistant` };
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    const texts: string[] = [];
    for (const block of blocks as { type?: unknown; text?: unknown }[]) {
      if (block?.type !== 'text' || typeof block.text !== 'string')
        return {
          refused: `${String(block?.type)} content: the engine's model is given text only`,
        };
      texts.push(block.text);
    }
    messages.push({ role: message.role, content: texts.join('\n') });
  }
  if (!messages.some((m) => m.role === 'user')) return { refused: 'no user message to answer' };
  return {
    messages,
    tools: [],
    ...(model && { model }),
    sampling: {
      maxTokens: Math.max(1, Math.min(params.maxTokens, maxTokens)),
      ...(params.temperature !== undefined && { temperature: params.temperature }),
      ...(params.stopSequences?.length && { stop: params.stopSequences }),
    },
  };
}

/** MCP's stop reason for the completion's `finish_reason`. */
function stopReason(finish: string | null): string {
  if (finish === 'length') return 'maxTokens';
  return finish === null || finish === 'stop' ? 'endTurn' : finish;
}

/** How a request ended, for the engine's metrics; the tokens it took when the server says. */
export type SamplingCount = (outcome: 'answered' | 'refused' | 'failed', usage?: LlmUsage) => void;

/**
 * Asks `llm` for the completion a server asks (`params`), at most `maxTokens` long (the server's
 * `maxTokens` if less), MAX_SAMPLINGS_AT_ONCE at most at once; each told to `count`. `model` is
 * how the result names the model. A call the model makes in its answer is left out; its
 * reasoning too.
 */
export function modelSampler(llm: LlmClient, model: string, count: SamplingCount): SampleFn {
  let running = 0;
  return async (params, maxTokens, signal, chosen) => {
    const request = samplingRequest(params, maxTokens, chosen);
    if ('refused' in request) {
      count('refused');
      return request;
    }
    if (running >= MAX_SAMPLINGS_AT_ONCE) {
      count('refused');
      const failed = `the engine runs at most ${MAX_SAMPLINGS_AT_ONCE} completions for MCP servers at once; ask again once one has ended`;
      return { failed };
    }
    running++;
    const events = await lastValueFrom(llm.chatReply(request, signal).pipe(toArray())).finally(
      () => running--,
    );
    // The server cancelled, or its connection closed: no one reads the answer.
    if (signal?.aborted) {
      count('failed');
      return { failed: 'the request was cancelled' };
    }
    let text = '';
    let finish: string | null = null;
    let usage: LlmUsage | undefined;
    for (const event of events) {
      if (event.type === 'error') {
        count('failed');
        return { failed: `the engine's model failed: ${event.message}` };
      }
      if (event.type === 'text') text += event.text;
      if (event.type === 'done') ({ finishReason: finish, usage } = event);
    }
    count('answered', usage);
    const content = { type: 'text' as const, text };
    const named = chosen ?? model;
    return { result: { model: named, role: 'assistant', content, stopReason: stopReason(finish) } };
  };
}

/**
 * Asks the model for a server's completion, at most `maxTokens` long; `model`: a session's own
 * model rather than the engine's.
 */
export type SampleFn = (
  params: SamplingParams,
  maxTokens: number,
  signal?: AbortSignal,
  model?: string,
) => Promise<SamplingAnswer>;

/**
 * The model of the session whose calls wait on the connection (`calls`), when it chose one of
 * LLM_MODELS: undefined for the engine's, and when calls of several sessions wait (whose the
 * request is, the protocol does not say).
 */
export function sessionModel(
  calls: ReadonlySet<{ session?: string; model?: string }>,
): string | undefined {
  const waiting = [...calls];
  if (new Set(waiting.map((c) => c.session)).size !== 1) return undefined;
  return waiting.findLast((c) => c.model)?.model;
}

/**
 * `sample` for one server's connection, at most `maxTokens` a completion, each told to `log`
 * by its size and time (the texts, which may carry the user's data, at debug level only).
 */
export function sampler(
  sample: SampleFn,
  maxTokens: number,
  log: (line: string, level?: EngineLogLevel) => void,
  calls: ReadonlySet<{ session?: string; model?: string }> = new Set(),
): (params: SamplingParams, signal: AbortSignal) => Promise<SamplingAnswer> {
  return async (params, signal) => {
    const started = performance.now();
    const answer = await sample(params, maxTokens, signal, sessionModel(calls));
    if ('refused' in answer)
      log(`asked the model for a completion, refused: ${answer.refused}`, 'warn');
    else if ('failed' in answer) log(`asked the model for a completion: ${answer.failed}`, 'warn');
    else {
      const { text } = answer.result.content;
      const ms = Math.round(performance.now() - started);
      log(`asked the model for a completion (sampling): ${text.length} characters in ${ms} ms`);
      log(`sampling: ${JSON.stringify(params.messages)} answered ${JSON.stringify(text)}`, 'debug');
    }
    return answer;
  };
}
