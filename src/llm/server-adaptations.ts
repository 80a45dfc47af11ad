/**
 * What the engine has learned an LLM server refuses, from its HTTP 400 answers, and keeps for the
 * life of the process: each adaptation is adopted once, logged once, and the request sent again.
 * Pure: no Nest import.
 */
import { withNineCharacterIds } from './call-ids.js';
import type { ChatMessage, LlmTool } from './llm.types.js';
import { messagesJson, toolsJson } from './request-json.js';
import { defusedMessage, defuseSpecialTokens } from './special-tokens.js';
import { withoutUnusedDefs } from './unused-defs.js';

/** vLLM without `--enable-auto-tool-choice` refuses `tool_choice: "auto"` with HTTP 400. */
const NO_TOOL_PARSER = /auto.{0,20}tool.?choice|enable-auto-tool-choice|tool-call-parser/i;
/** mlx-openai-server: "Tool choice must be 'auto' when tools are provided." */
const AUTO_ONLY = /tool.?choice must be .?auto/i;
/** Gemini's endpoint refuses an object schema whose `properties` is empty (a tool with no arguments). */
const EMPTY_PROPERTIES = /properties:? should be non-empty for OBJECT type/i;
/** Mistral's chat templates and tokenizer refuse any call id but 9 letters and digits (call-ids.ts). */
const NINE_CHARACTER_IDS = /alphanumeric strings? with length 9|with a length of 9/i;
/**
 * Mistral's and Gemma's chat templates count only user messages and assistant messages without
 * calls, and want them to alternate from a user's: they refuse two users in a row (a turn cut off
 * after its tool results, then the next) and a conversation the agent began (a said greeting).
 * Mistral's own API says it its way.
 */
const ROLES_ALTERNATE =
  /roles must alternate|unexpected role .?user.? after role .?tool|unexpected role .?assistant.? after role .?system/i;
/**
 * Ollama ("invalid message content type: <nil>") and LM Studio ("'content' field must be a string
 * or an array of objects") refuse an answer that is only calls with `content: null`, as OpenAI's
 * API has it.
 */
const NULL_CONTENT = /invalid message content type|'content' field must be a string/i;
/**
 * OpenAI's reasoning models (o-series, GPT-5): "Unsupported parameter: 'max_tokens' is not
 * supported with this model. Use 'max_completion_tokens' instead." (an MCP server's sampling).
 */
const COMPLETION_TOKENS = /max_tokens.{0,80}max_completion_tokens/is;
/**
 * A server that refuses the reasoning sent back with a turn's calls, naming the field (OpenAI's
 * API: "Additional properties are not allowed ('reasoning_content' was unexpected)"; Mistral's
 * "Extra inputs are not permitted" at `reasoning_content`, Groq's "property 'reasoning_content'
 * is unsupported", DeepSeek's R1 "Please remove the reasoning_content from your message").
 */
const NO_REASONING =
  /\breasoning_content\b|['"`]reasoning['"`]|\breasoning\b[^\n]{0,120}(?:unexpected|unsupported|unrecognized|not (?:allowed|permitted|supported)|extra)/i;
/**
 * An assistant message's reasoning as servers read it: `reasoning_content` (llama.cpp, SGLang,
 * vLLM before 0.11, Kimi's and DeepSeek's APIs) and `reasoning` (vLLM since), or none.
 */
function withReasoning(message: ChatMessage, sent: boolean): ChatMessage {
  if (message.role !== 'assistant' || message.reasoning_content === undefined) return message;
  const { reasoning_content: reasoning, ...rest } = message;
  return sent ? ({ ...rest, reasoning_content: reasoning, reasoning } as ChatMessage) : rest;
}
/** `message` with an empty string for a null content. */
const withStringContent = (message: ChatMessage): ChatMessage =>
  message.role === 'assistant' && message.content === null ? { ...message, content: '' } : message;
/**
 * `message` with its control tokens broken (see special-tokens.ts), `defused` told of them (none:
 * told already, the message written anew after an adaptation was learned).
 */
function withDefusedTokens(message: ChatMessage, defused: Defused | undefined): ChatMessage {
  const out = defusedMessage(message);
  if (out.found.length === 0) return message;
  if (!defused) return out.message;
  if (message.role === 'tool')
    defused('tool_result', `a tool result (call_id=${message.tool_call_id})`, out.found);
  else if (message.role === 'user') defused('user', "a user's message", out.found);
  else defused('assistant', "the model's own message", out.found);
  return out.message;
}
/** What closes such a turn in requests to those servers. */
export const CUT_OFF_ANSWER = '(interrupted)';
const closings = new WeakMap<ChatMessage, ChatMessage>();
/** What opens, in requests to those servers, a conversation the agent began (`say`). */
export const OPENING: ChatMessage = { role: 'user', content: '(the conversation begins)' };

/**
 * `messages` as servers that want roles to alternate take them: a turn cut off after its tool
 * results closed (`withClosedToolTurns`), and OPENING before a conversation the agent began.
 */
export function withAlternatingRoles(messages: readonly ChatMessage[]): readonly ChatMessage[] {
  const closed = withClosedToolTurns(messages);
  const first = closed.findIndex((m) => m.role !== 'system');
  if (first === -1 || closed[first]!.role !== 'assistant') return closed;
  return [...closed.slice(0, first), OPENING, ...closed.slice(first)];
}

/**
 * `messages` with an assistant message (CUT_OFF_ANSWER) between a tool result and a user message
 * that follows it; `messages` itself when there is none such.
 */
export function withClosedToolTurns(messages: readonly ChatMessage[]): readonly ChatMessage[] {
  const cut = (m: ChatMessage, i: number) => m.role === 'user' && messages[i - 1]?.role === 'tool';
  if (!messages.some(cut)) return messages;
  return messages.flatMap((message, i) => {
    if (!cut(message, i)) return [message];
    // The same closing message for the same turn, so that its JSON is written once.
    const tool = messages[i - 1]!;
    let closing = closings.get(tool);
    if (!closing) closings.set(tool, (closing = { role: 'assistant', content: CUT_OFF_ANSWER }));
    return [closing, message];
  });
}
/** Where control tokens were broken: a message of whom, or a tool's definition. */
export type DefusedSource = 'user' | 'tool_result' | 'assistant' | 'tool_definition';
/** Control tokens were broken in what `whose` names (of `source`): those tokens. */
export type Defused = (source: DefusedSource, whose: string, tokens: readonly string[]) => void;

export class ServerAdaptations {
  /** No tool parser: `tool_choice: "none"` (the tools stay in the prompt), calls read from the text. */
  noToolParser = false;
  /** Object schemas are sent without an empty `properties`. */
  bareObjects = false;
  /** Call ids are sent as 9 letters and digits (`nineCharacterId`). */
  nineCharacterIds = false;
  /**
   * User and assistant messages alternate from a user's (`withAlternatingRoles`): a turn cut off
   * after its tool results is closed, a conversation the agent began is opened.
   */
  alternatingRoles = false;
  /** An answer that is only calls has `""` for its content, not null. */
  stringContent = false;
  /** `tool_choice` can only be "auto": a request that must not call tools is sent without them. */
  autoOnly = false;
  /** A request's longest completion is `max_completion_tokens`, not `max_tokens`. */
  completionTokens = false;
  /** The reasoning of a turn's calls is not sent back (LLM_KEEP_REASONING off, or refused). */
  noReasoning = false;
  /** How each message is changed before it is sent: one function per set of changes. */
  private form: (message: ChatMessage) => ChatMessage;
  /** A tool's item of the `tools` array as sent, from its JSON: its control tokens broken. */
  private readonly toolItem: ((json: string, name: string) => string) | undefined;
  /** Each schema as sent without its unused `$defs`, by the tool's schema. */
  private readonly pruned = new WeakMap<Record<string, unknown>, Record<string, unknown>>();
  /** Each schema as sent with `bareObjects`, by the tool's schema. */
  private readonly bare = new WeakMap<Record<string, unknown>, Record<string, unknown>>();

  private readonly defused: Defused | undefined;
  /** The messages, and the tools' definitions (name and tokens), whose control tokens were told of. */
  private readonly toldMessages = new WeakSet<ChatMessage>();
  private readonly toldTools = new Set<string>();

  /**
   * `defused`, when given, breaks the control tokens in the messages (but the system's) and the
   * tools' definitions (LLM_DEFUSE_SPECIAL_TOKENS, special-tokens.ts), and hears of each that
   * held some; `keepReasoning` false sends no reasoning back (LLM_KEEP_REASONING).
   */
  constructor({
    defused,
    keepReasoning = true,
  }: { defused?: Defused; keepReasoning?: boolean } = {}) {
    this.defused = defused;
    this.noReasoning = !keepReasoning;
    this.form = this.messageForm();
    if (defused)
      this.toolItem = (json, name) => {
        const { text, found } = defuseSpecialTokens(json);
        const told = `${name}\u0000${found.join('\u0000')}`;
        if (found.length > 0 && !this.toldTools.has(told)) {
          this.toldTools.add(told);
          defused('tool_definition', `tool '${name}''s definition`, found);
        }
        return text;
      };
  }

  /** How many adaptations have been adopted: a request written with fewer may be sent again. */
  get count(): number {
    const adopted = [
      this.noToolParser,
      this.bareObjects,
      this.nineCharacterIds,
      this.alternatingRoles,
      this.stringContent,
      this.autoOnly,
      this.completionTokens,
      this.noReasoning,
    ];
    return adopted.filter(Boolean).length;
  }

  /** Adopts what a 400's `text` asks for; the warning to log, or undefined when it asks nothing new. */
  learn(text: string, toolChoice: 'auto' | 'none', reasoned = false): string | undefined {
    if (!this.noToolParser && toolChoice === 'auto' && NO_TOOL_PARSER.test(text)) {
      this.noToolParser = true;
      return 'the LLM server has no tool parser (HTTP 400 on tool_choice "auto"): using tool_choice "none" and parsing calls from the text from now on';
    }
    if (!this.autoOnly && toolChoice === 'none' && AUTO_ONLY.test(text)) {
      this.autoOnly = true;
      return 'the LLM server takes tool_choice "auto" only (HTTP 400): a request that must not call tools is sent without them from now on';
    }
    if (!this.nineCharacterIds && NINE_CHARACTER_IDS.test(text)) {
      this.nineCharacterIds = true;
      this.form = this.messageForm();
      return 'the LLM server takes only call ids of 9 letters and digits (HTTP 400, a Mistral chat template or tokenizer): sending every call id in that form from now on';
    }
    if (!this.stringContent && NULL_CONTENT.test(text)) {
      this.stringContent = true;
      this.form = this.messageForm();
      return 'the LLM server refuses a null content (HTTP 400): sending "" for the content of an answer that is only calls from now on';
    }
    if (!this.alternatingRoles && ROLES_ALTERNATE.test(text)) {
      this.alternatingRoles = true;
      return `the LLM server wants user and assistant messages to alternate (HTTP 400, a Mistral or Gemma chat template): a turn cut off after its tool results is closed with an assistant message "${CUT_OFF_ANSWER}", and a conversation the agent began is opened with a user message "${OPENING.content}", in requests from now on`;
    }
    if (!this.noReasoning && reasoned && NO_REASONING.test(text)) {
      this.noReasoning = true;
      this.form = this.messageForm();
      return "the LLM server refuses the model's reasoning sent back with its calls (HTTP 400): sending none from now on (LLM_KEEP_REASONING)";
    }
    if (!this.completionTokens && COMPLETION_TOKENS.test(text)) {
      this.completionTokens = true;
      return 'the LLM server refuses max_tokens (HTTP 400, a reasoning model): sending max_completion_tokens from now on';
    }
    if (!this.bareObjects && EMPTY_PROPERTIES.test(text)) {
      this.bareObjects = true;
      return 'the LLM server refuses object parameters without properties (HTTP 400): sending tools that take no arguments without "properties" from now on';
    }
    return undefined;
  }

  /** The messages as JSON, in the form this server takes them. */
  messagesJson(messages: readonly ChatMessage[]): string {
    const list = this.alternatingRoles ? withAlternatingRoles(messages) : messages;
    return messagesJson(list, this.form);
  }

  private messageForm(): (message: ChatMessage) => ChatMessage {
    const { nineCharacterIds: ids, stringContent: content, defused, noReasoning } = this;
    const told = this.toldMessages;
    // Each message told of once, however often its JSON is written anew.
    const tellOnce = (message: ChatMessage) =>
      told.has(message) ? undefined : (told.add(message), defused);
    return (message) => {
      let formed = defused ? withDefusedTokens(message, tellOnce(message)) : message;
      formed = withReasoning(formed, !noReasoning);
      if (ids) formed = withNineCharacterIds(formed);
      return content ? withStringContent(formed) : formed;
    };
  }

  /**
   * The request's `tools` (as JSON) and `tool_choice`, as this server takes them; none for a
   * request without tools, or one that must not call them when the server takes only "auto".
   */
  tools(
    tools: readonly LlmTool[],
    asked: 'auto' | 'none',
  ): { json: string; choice: 'auto' | 'none' } | undefined {
    const choice = this.noToolParser ? 'none' : asked;
    if (tools.length === 0 || (choice === 'none' && this.autoOnly)) return undefined;
    const json = toolsJson(tools, (schema) => this.parameters(schema), this.toolItem);
    return { json, choice };
  }

  /**
   * A tool's parameters as this server takes them, without the shared schemas nothing in them
   * refers to (unused-defs.ts), for every server.
   */
  parameters(schema: Record<string, unknown>): Record<string, unknown> {
    // The same schema object for the same tool, so that its JSON is written once (request-json.ts).
    let sent = this.pruned.get(schema);
    if (!sent) this.pruned.set(schema, (sent = withoutUnusedDefs(schema)));
    if (!this.bareObjects) return sent;
    let bare = this.bare.get(sent);
    if (!bare)
      this.bare.set(sent, (bare = withoutEmptyProperties(sent) as Record<string, unknown>));
    return bare;
  }
}

/** The schema with every `"properties": {}` of an object left out (nested ones too). */
export function withoutEmptyProperties(schema: unknown): unknown {
  if (Array.isArray(schema)) return (schema as unknown[]).map(withoutEmptyProperties);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    const empty = typeof value === 'object' && value !== null && Object.keys(value).length === 0;
    if (
      (key === 'properties' && empty) ||
      (key === 'required' && Array.isArray(value) && value.length === 0)
    )
      continue;
    out[key] = withoutEmptyProperties(value);
  }
  return out;
}
