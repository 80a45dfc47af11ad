import type { ChatMessage } from './llm.types.js';

/**
 * Chat-template control tokens written into a message's text. vLLM, SGLang and transformers
 * render the conversation to one string and tokenize it whole, so a `<|im_end|>` or `<|eot_id|>`
 * in a user's words or a tool's result is read as the real token: a caller, a web page or a
 * tool's backend can end the turn there and write a system message of its own ("special token
 * injection"). A zero-width space after the token's first character leaves its text for the
 * model to read and no token for the tokenizer to match. Pure: no Nest import.
 */

/** What a tokenizer matches as one token of its own, in the shapes of the model families. */
const TOKEN = new RegExp(
  [
    // ChatML (Qwen, Kimi, Hermes), Llama 3 and 4, gpt-oss's Harmony, Phi, Granite, GLM, Cohere,
    // Hunyuan: `<|im_start|>`, `<|eot_id|>`, `<|channel|>`, `<|start_of_role|>`, `<|/tool_call|>`.
    String.raw`<\|[^|<>\s]{1,48}\|>`,
    // DeepSeek: `<｜User｜>`, `<｜tool▁calls▁begin｜>`; V3.2's DSML tags.
    String.raw`<｜[^｜<>\s]{1,48}｜>`,
    String.raw`<\/?｜DSML｜`,
    // Qwen's, Hermes', GLM's and Nemotron's call and result tags, reasoning tags.
    String.raw`<\/?(?:tool_call|tool_response|tools|think|arg_key|arg_value|TOOLCALL)>`,
    // Mistral's control tokens, Llama 2's, Kimi's.
    String.raw`\[\/?(?:INST|TOOL_CALLS|TOOL_RESULTS|TOOL_CONTENT|AVAILABLE_TOOLS|SYSTEM_PROMPT|THINK|ARGS|CALL_ID|BOS|EOS|gMASK)\]`,
    String.raw`<<\/?SYS>>`,
    // Beginning and end of a sequence (Llama 2, Mistral, Gemma, Cohere, GLM).
    String.raw`<\/?(?:s|bos|eos|pad|sop|BOS_TOKEN|EOS_TOKEN)>`,
    // Gemma's turns and FunctionGemma's calls.
    String.raw`<(?:start|end)_of_turn>|<(?:start|end)_function_(?:call|response|declaration)>|<escape>`,
    // Seed-OSS, MiniMax.
    String.raw`<\/?seed:[a-z_]{1,24}>|<\/?minimax:tool_call>|\]~!?b[\[\]]|\[e~\[`,
  ].join('|'),
  'g',
);

const MARK = '\u200b';

/** `text` with every control token broken by a zero-width space, and the tokens found. */
export function defuseSpecialTokens(text: string): { text: string; found: string[] } {
  const found: string[] = [];
  const defused = text.replace(TOKEN, (token) => {
    found.push(token);
    return token[0] + MARK + token.slice(1);
  });
  return { text: found.length > 0 ? defused : text, found };
}

/**
 * `message` with the control tokens of its text broken, and those found; the message itself when
 * it held none. A system message is the administrator's, sent as written. The model's own
 * messages are broken too: a model asked to repeat a string can write a token's characters as
 * text, which the next request would tokenize as the token (its calls' arguments and the
 * reasoning sent back with them as well).
 */
export function defusedMessage(message: ChatMessage): { message: ChatMessage; found: string[] } {
  if (message.role === 'system') return { message, found: [] };
  const found: string[] = [];
  const defuse = (text: string) => {
    const out = defuseSpecialTokens(text);
    found.push(...out.found);
    return out.text;
  };
  const content = message.content === null ? null : defuse(message.content);
  if (message.role !== 'assistant') {
    if (found.length === 0) return { message, found };
    return { message: { ...message, content: content! }, found };
  }
  const calls = message.tool_calls?.map((call) => {
    const args = defuse(call.function.arguments);
    return { ...call, function: { ...call.function, arguments: args } };
  });
  const reasoning =
    message.reasoning_content === undefined ? undefined : defuse(message.reasoning_content);
  if (found.length === 0) return { message, found };
  const defused = {
    ...message,
    content,
    ...(calls && { tool_calls: calls }),
    ...(reasoning !== undefined && { reasoning_content: reasoning }),
  };
  return { message: defused, found };
}
