import { BareReplyHead, type HeadOutcome } from './parsing/bare-reply.js';
import { contentParts } from './content-parts.js';
import { callFrom, type ParsedTextCall } from './parsing/hermes-call.js';
import { MistralCallSplitter } from './parsing/mistral-call.js';
import type { SplitSink } from './parsing/held-splitter.js';
import { ProseCallSplitter } from './parsing/prose-calls.js';
import { callsInReasoning } from './parsing/reasoning-calls.js';
import { TextRewrites } from './parsing/text-rewrites.js';
import type { ToolSchemas } from './parsing/value-typing.js';
import { ToolCallTextParser, type TextParserSink } from './parsing/tool-call-text.parser.js';
import type { LlmEvent, LlmUsage, ToolCallEvent } from './llm.types.js';
import { newCallId } from './call-ids.js';
import { CallTally, callKey } from './call-tally.js';
import { meantTool } from './parsing/tool-names.js';
import { errorMessageOf } from './stream-fault.js';
import { StreamedText } from './streamed-text.js';
import {
  messageCalls,
  StructuredCallAssembler,
  type AssembledCall,
} from './structured-call-assembler.js';
import { parseJsonExact } from './parsing/json.js';

const CALL_DEBRIS = /^[\s>]*$/;

interface Delta {
  content?: unknown;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: unknown;
  refusal?: string | null;
}

/**
 * Turns chat-completion chunks (or one non-streamed reply) into LlmEvents. Calls come from
 * every source at once: structured `tool_calls`, Qwen3-Coder XML or Hermes text in the content,
 * and, when the content holds none, a call written inside the reasoning. The same call seen in
 * two of them is emitted once; one repeated in one of them, each time (see CallTally). Pure: no
 * I/O.
 */
export class CompletionDecoder {
  private readonly text: ToolCallTextParser;
  private readonly structured = new StructuredCallAssembler();
  private readonly tally = new CallTally();
  /** All the reasoning, for the rescue of a call written there. */
  private readonly reasoning = new StreamedText();
  private finishReason: string | null = null;
  /** The output has ended: calls emitted now were still open (see emitCall). */
  private ending = false;
  /** A choice has said why it finished (`finish_reason`). */
  get finished(): boolean {
    return this.finishReason !== null;
  }
  private usage: LlmUsage | undefined;
  /**
   * The ids of the calls emitted (so also their count): a server's id is kept unless empty or
   * already used (DeepSeek, GLM reuse them).
   */
  private readonly ids = new Set<string>();
  /** Structured `tool_calls` fragments have arrived in this completion. */
  private structuredCalls = false;
  /** The content's start, while it is only whitespace or may be a bare call; then null. */
  private head: BareReplyHead | null;
  /** Where the text parser's output goes during the current call of `chunk`/`reply`/`end`. */
  private out: LlmEvent[] = [];
  private readonly sink: TextParserSink = {
    text: (text) => (this.prose ? this.prose.push(text, this.proseSink) : this.emitText(text)),
    reasoning: (text) => {
      this.reasoning.append(text);
      this.out.push({ type: 'reasoning', text });
    },
    call: (call) => this.emitCall(call, undefined, this.out, 'text', call.unclosed === true),
  };

  /**
   * The content has other markup rewritten into what the text parser reads (see TextRewrites),
   * then, while tools are active, Mistral's `[TOOL_CALLS]` calls taken out.
   */
  private readonly rewrites: TextRewrites;
  private readonly mistral: MistralCallSplitter | undefined;
  private readonly split: SplitSink = {
    text: (text) => this.contentText(text),
    calls: (calls) =>
      calls.forEach((call) =>
        this.emitCall(call, undefined, this.out, 'text', call.unclosed === true),
      ),
  };
  /** Then, in the text outside all markup, calls written as bare JSON after prose. */
  private readonly prose: ProseCallSplitter | undefined;
  private readonly proseSink: SplitSink = { ...this.split, text: (text) => this.emitText(text) };

  /** Ids already in the conversation: a server's id that repeats one is replaced. */
  private readonly earlierIds: ReadonlySet<string>;

  /**
   * `untaggedReasoning`: the content begins inside reasoning with no opening tag (see
   * ToolCallTextParser); `earlierIds`: the call ids of the conversation so far.
   */
  constructor(
    private readonly schemas: ToolSchemas,
    opts: { untaggedReasoning?: boolean; earlierIds?: ReadonlySet<string> } = {},
  ) {
    this.earlierIds = opts.earlierIds ?? new Set();
    this.text = new ToolCallTextParser(schemas, opts);
    this.rewrites = new TextRewrites(schemas);
    this.head = new BareReplyHead(schemas);
    if (schemas.size > 0) {
      this.mistral = new MistralCallSplitter(schemas);
      this.prose = new ProseCallSplitter(schemas);
    }
  }

  /** See ToolCallTextParser.strayThinkEnd. */
  get strayThinkEnd(): boolean {
    return this.text.strayThinkEnd;
  }

  /** One SSE `data:` object. An `error` object ends the stream with an error event. */
  chunk(body: unknown): LlmEvent[] {
    const error = errorMessageOf(body);
    if (error !== undefined) return [{ type: 'error', message: error, retryable: false }];
    const out: LlmEvent[] = [];
    const { choices, usage } = body as {
      choices?: { delta?: Delta; finish_reason?: string | null }[];
      usage?: LlmUsage;
    };
    if (usage) this.usage = usage;
    const choice = Array.isArray(choices) ? choices[0] : undefined;
    if (!choice) return out;
    const delta = choice.delta ?? {};
    this.addReasoning(delta.reasoning_content ?? delta.reasoning, out);
    const content = this.unpart(delta.content, out);
    if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) this.structuredCalls = true;
    if (typeof content === 'string' && !this.isCallDebris(content)) this.fromText(content, out);
    this.refusal(delta.refusal, out);
    for (const call of this.structured.add(delta.tool_calls)) this.fromStructured(call, out);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return out;
  }

  /** A whole non-streamed reply (`choices[0].message`). */
  reply(body: unknown): LlmEvent[] {
    const error = errorMessageOf(body);
    if (error !== undefined) return [{ type: 'error', message: error, retryable: false }];
    const out: LlmEvent[] = [];
    const { choices, usage } = body as {
      choices?: { message?: Delta; finish_reason?: string | null }[];
      usage?: LlmUsage;
    };
    if (usage) this.usage = usage;
    // A JSON answer that is no completion (a gateway's `{"detail": "Not Found"}` with HTTP 200).
    if (!Array.isArray(choices) || choices.length === 0)
      return [
        {
          type: 'error',
          message: `the LLM server's reply holds no choices: ${JSON.stringify(body)?.slice(0, 200)}`,
          retryable: false,
        },
      ];
    const choice = choices[0];
    const message = choice?.message ?? {};
    this.finishReason = choice?.finish_reason ?? null;
    this.addReasoning(message.reasoning_content ?? message.reasoning, out);
    const content = this.unpart(message.content, out);
    if (typeof content === 'string') this.fromText(content, out);
    this.refusal(message.refusal, out);
    // The calls are whole messages' own, read as a stream's are at its end (a text call with its
    // closing tag, above, was not cut).
    this.ending = true;
    for (const call of messageCalls(message.tool_calls)) this.fromStructured(call, out);
    return [...out, ...this.end()];
  }

  /** End of output: remaining text and calls, the reasoning rescue, then `done`. */
  end(): LlmEvent[] {
    const out: LlmEvent[] = [];
    this.out = out;
    this.ending = true;
    const rest = this.rewrites.end();
    if (rest !== '') this.mended(rest);
    this.mistral?.end(this.split);
    if (this.head !== null) this.settle(this.head.push('', true));
    this.text.end(this.sink);
    this.prose?.end(this.proseSink);
    for (const call of this.structured.finish()) this.fromStructured(call, out);
    if (this.ids.size === 0)
      for (const call of callsInReasoning(this.schemas, this.reasoning.toString()))
        this.emitCall(call, undefined, out, 'reasoning');
    out.push({
      type: 'done',
      finishReason: this.finishReason,
      ...(this.usage ? { usage: this.usage } : {}),
    });
    return out;
  }

  private emitText(text: string): void {
    this.out.push({ type: 'text', text });
  }

  /** OpenAI's `refusal` (instead of content): the answer the user gets. */
  private refusal(text: string | null | undefined, out: LlmEvent[]): void {
    if (typeof text === 'string' && text !== '') out.push({ type: 'text', text });
  }

  /** The content to read as text; content given as parts has its thinking parts added to the reasoning. */
  private unpart(content: unknown, out: LlmEvent[]): unknown {
    const parts = contentParts(content);
    if (!parts) return content;
    this.addReasoning(parts.thinking, out);
    return parts.text;
  }

  private addReasoning(text: string | null | undefined, out: LlmEvent[]): void {
    if (typeof text !== 'string' || text === '') return;
    this.text.reasoningApart();
    this.reasoning.append(text);
    out.push({ type: 'reasoning', text });
  }

  /**
   * After structured calls, a server-side parser may let the tail of the call's markup through
   * as content (vLLM's qwen3_coder with speculative decoding: `>` then `\n</tool_call>`). A
   * delta of only `>` and whitespace there is that debris, not text (the closer itself is
   * dropped by the text parser as an orphan tag).
   */
  private isCallDebris(content: string): boolean {
    return this.structuredCalls && CALL_DEBRIS.test(content);
  }

  private fromText(content: string, out: LlmEvent[]): void {
    this.out = out;
    this.mended(this.rewrites.push(content));
  }

  private mended(content: string): void {
    if (this.mistral) this.mistral.push(content, this.split);
    else this.contentText(content);
  }

  /** Content that is no Mistral call: the reply's start while it may be a bare call, then text. */
  private contentText(content: string): void {
    if (this.head === null) return this.text.feed(content, this.sink);
    this.settle(this.head.push(content, false));
  }

  /** The reply's start, once decided: calls written without tags (then text), or text. */
  private settle(outcome: HeadOutcome): void {
    if (outcome.kind === 'hold') return;
    this.head = null;
    if (outcome.kind === 'text') return this.text.feed(outcome.text, this.sink);
    for (const call of outcome.calls)
      this.emitCall(call, undefined, this.out, 'text', call.unclosed === true);
    this.text.feed(outcome.rest, this.sink);
  }

  private fromStructured(call: AssembledCall, out: LlmEvent[]): void {
    const whole = call.arguments.trim() !== '' && parseJsonExact(call.arguments) !== undefined;
    this.emitCall(callFrom(call.name, call.arguments), call.id, out, 'structured', !whole);
  }

  /**
   * Calls need distinct ids, in the round and in the whole conversation: the next request pairs
   * each tool message with its call by id, and servers refuse a repeated one ("Duplicate value
   * for 'tool_call_id'"; Mistral's and Anthropic's endpoints count calls and results by id).
   * Some servers number calls per response (Kimi's `search_web:0`) or regenerate an id.
   */
  private uniqueId(id: string | undefined): string {
    const unique = id && !this.ids.has(id) && !this.earlierIds.has(id) ? id : newCallId();
    this.ids.add(unique);
    return unique;
  }

  private emitCall(
    parsed: ParsedTextCall,
    id: string | undefined,
    out: LlmEvent[],
    source: 'structured' | 'text' | 'reasoning',
    unfinished = false,
  ): void {
    const call = { ...parsed, name: meantTool(parsed.name, this.schemas) };
    // Still being written when the output reached the model's token limit: its arguments were
    // mended into JSON (a text cut mid-word would be sent as it is), so it is not to run. A
    // structured call still open at the end whose JSON did not close; an XML call whose closing
    // tags never came.
    const cutOff = this.ending && this.finishReason === 'length' && unfinished;
    const valid = call.raw === JSON.stringify(call.args);
    const key = callKey(call.name, call.args, valid ? '' : call.raw);
    if (!this.tally.add(key, source)) return;
    const event: ToolCallEvent = {
      type: 'tool_call',
      id: this.uniqueId(id ?? parsed.id),
      name: call.name,
      arguments: call.args,
      rawArguments: call.raw,
      argumentsValid: valid,
      ...(cutOff && { cutOff: true as const }),
    };
    out.push(event);
  }
}
