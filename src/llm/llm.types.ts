import type { Observable } from 'rxjs';
import type { SpanRef } from '../common/trace-context.js';

export interface ChatToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/**
 * One message of a conversation. Read-only: a message is never changed once made (a changed
 * turn is new messages), so the LLM client can keep each one's JSON for the next requests.
 */
export type ChatMessage =
  | { readonly role: 'system' | 'user'; readonly content: string }
  | {
      readonly role: 'assistant';
      readonly content: string | null;
      readonly tool_calls?: readonly ChatToolCall[];
      /**
       * The reasoning the model wrote before these calls, sent back with them while the turn
       * lasts (LLM_KEEP_REASONING): thinking models that call tools go on from it.
       */
      readonly reasoning_content?: string;
    }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string };

/** A tool as the model sees it (OpenAI function shape, never the url or headers). */
export interface LlmTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface LlmRequest {
  messages: ChatMessage[];
  tools: LlmTool[];
  /**
   * Tools the request does not offer whose calls are still read as calls (deferred tools a search
   * could find: a call of one finds it), not as text to speak.
   */
  unoffered?: readonly Pick<LlmTool, 'name' | 'parameters'>[];
  /** Default `auto` when tools are given. */
  toolChoice?: 'auto' | 'none';
  /** The turn's trace id: the request carries a W3C `traceparent` (TRACE_CONTEXT). */
  traceId?: string;
  /** The exported span of the request (OTEL_EXPORTER_OTLP_ENDPOINT): its `traceparent`'s parent. */
  span?: SpanRef;
  /** The session's model, one of LLM_MODELS (the fallback server answers with its own). */
  model?: string;
  /**
   * How to sample, as an MCP server asks it (`sampling/createMessage`): `max_tokens`,
   * `temperature` and `stop` of the request, over LLM_EXTRA_BODY's.
   */
  sampling?: { maxTokens: number; temperature?: number; stop?: readonly string[] };
}

export interface LlmUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}

/** The Llm → Orchestrator contract: a small tagged union. */
export type LlmEvent =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | {
      type: 'tool_call';
      id: string;
      name: string;
      arguments: Record<string, unknown>;
      /** The arguments as written; differs from JSON of `arguments` when they were not a JSON object. */
      rawArguments: string;
      argumentsValid: boolean;
      /** Still being written when the output reached the token limit (`finish_reason: "length"`). */
      cutOff?: true;
    }
  | { type: 'done'; finishReason: string | null; usage?: LlmUsage }
  | {
      type: 'error';
      message: string;
      status?: number;
      retryable: boolean;
      /** The server said the conversation does not fit the model's context. */
      contextOverflow?: true;
    };

export type ToolCallEvent = Extract<LlmEvent, { type: 'tool_call' }>;

/** Port: an OpenAI-compatible chat completion server. Unsubscribing aborts the request. */
export abstract class LlmClient {
  /** A streamed completion; unsubscribing or aborting `signal` aborts the HTTP request. */
  abstract stream(request: LlmRequest, signal?: AbortSignal): Observable<LlmEvent>;
  /** The same without streaming (the seed's fallback for rounds that stream back empty). */
  abstract chatReply(request: LlmRequest, signal?: AbortSignal): Observable<LlmEvent>;
  /**
   * A request is coming soon (a caller's words are being transcribed): a connection to the
   * server is opened now if none is ready, its handshake done before the request needs it.
   */
  warm(): void {}
  /** What is wrong with the server, checked once at start-up (a warning), or undefined. */
  check(signal: AbortSignal): Promise<string | undefined> {
    void signal; // a server with nothing to check
    return Promise.resolve(undefined);
  }
}
