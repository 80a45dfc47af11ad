// The tags of tool-call and reasoning markup in model text (Qwen3-Coder XML, Hermes, <think>).
import { TURN_TOKENS } from './turn-tokens.js';

export const OPEN_CALL = '<tool_call>';
export const END_CALL = '</tool_call>';
export const FN = '<function=';
export const END_FN = '</function>';
export const PARAM = '<parameter=';
export const END_PARAM = '</parameter>';
/** The name-tag variant's opener: `<function>NAME</function>` (see hermes-call.ts). */
export const NAMED_FN = '<function>';
/** A wrapper from an older Qwen format that Qwen3.6 still lets slip around a call. */
export const INVOCATION = '<function_invocation>';
export const END_INVOCATION = '</function_invocation>';
/** Qwen2.5-Coder's wrapper, taken from its system prompt's `<tools></tools>` (see call-opener.ts). */
export const OPEN_TOOLS = '<tools>';
export const END_TOOLS = '</tools>';
export const THINK = '<think>';
/** A Markdown code fence, which some models put around a call's JSON. */
export const FENCE = '```';
export const END_THINK = '</think>';
/**
 * Llama 3.1's token before a call (its JSON, or a built-in tool's code), in the text when the
 * server sends special tokens (`skip_special_tokens: false`) and has no parser for them.
 */
export const PYTHON_TAG = '<|python_tag|>';

// What the incremental parser watches for in prose:
/** Tags that open a call or reasoning. */
export const START_TAGS = [OPEN_CALL, FN, OPEN_TOOLS, THINK];
/**
 * Closing tags met in prose, with no call or reasoning open, and stray wrapper tags: debris of
 * markup (a server-side parser that consumed a call but let its closer through, a model
 * imitating one or drifting to an older format), never text; Llama's `<|python_tag|>` (the JSON
 * call after it is read as one written bare, see prose-calls.ts).
 */
export const ORPHAN_TAGS = [
  END_CALL,
  END_FN,
  END_PARAM,
  END_THINK,
  INVOCATION,
  END_INVOCATION,
  PYTHON_TAG,
];
export const TEXT_TAGS = [...START_TAGS, ...ORPHAN_TAGS, ...TURN_TOKENS];
/** Tags whose beginning, at the end of what has arrived, is held back from the text. */
export const HOLD_TAGS = [OPEN_CALL, FN, OPEN_TOOLS, THINK, ...ORPHAN_TAGS, ...TURN_TOKENS];
/** After a call, tags that show whether the call really ended (structure) or another begins. */
export const PENDING_TAGS = [END_PARAM, END_FN, OPEN_CALL, FN];
