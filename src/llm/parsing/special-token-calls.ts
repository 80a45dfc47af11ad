import { jsonObjectEnd } from './hermes-call.js';

// Calls written with special tokens, met in the text when the server runs the model without its
// tool parser and keeps special tokens in the text (`skip_special_tokens: false`):
//   Kimi K2        <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0
//                  <|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>
//   DeepSeek V3.1  <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}
//                  <｜tool▁call▁end｜><｜tool▁calls▁end｜>
//   DeepSeek V3    <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>
// Each call is rewritten, once its end token has arrived, as a Hermes block
// (`<tool_call>{"name": …, "arguments": …}</tool_call>`) that the text parser reads; the section
// tokens around calls are dropped.

interface Dialect {
  begin: string;
  /** Between the call's id or name and its arguments. */
  separator: string;
  end: string;
}

const KIMI: Dialect = {
  begin: '<|tool_call_begin|>',
  separator: '<|tool_call_argument_begin|>',
  end: '<|tool_call_end|>',
};
const DEEPSEEK: Dialect = {
  begin: '<｜tool▁call▁begin｜>',
  separator: '<｜tool▁sep｜>',
  end: '<｜tool▁call▁end｜>',
};
const DIALECTS = [KIMI, DEEPSEEK];

/** Tokens around a group of calls: markup, dropped. */
export const SECTION_TOKENS = [
  '<|tool_calls_section_begin|>',
  '<|tool_calls_section_end|>',
  '<｜tool▁calls▁begin｜>',
  '<｜tool▁calls▁end｜>',
];
/** The tokens whose beginning, at the end of what has arrived, is held back. */
export const SPECIAL_TOKENS = [...SECTION_TOKENS, KIMI.begin, DEEPSEEK.begin];

/** Kimi's call id: `functions.NAME:INDEX` (some quantised models drop the prefix). */
const KIMI_ID = /^(?:functions\.)?(.+?)(?::\d+)?$/;
/** DeepSeek V3's body after the separator: the name, then the arguments in a JSON fence. */
const DEEPSEEK_V3 = /^([^\n]+)\n```(?:json)?\s*([\s\S]*?)\s*(?:```)?\s*$/;

/**
 * The special-token call starting at `i` in `s` as a Hermes block, with where it ends; `wait`
 * while its end token has not arrived; undefined when no call starts there. At the end of the
 * output, a call without its end token keeps what was written of it.
 */
export function specialTokenCall(
  s: string,
  i: number,
  final: boolean,
): { text: string; end: number } | 'wait' | undefined {
  const dialect = DIALECTS.find((d) => s.startsWith(d.begin, i));
  if (!dialect) return undefined;
  const close = s.indexOf(dialect.end, i);
  if (close === -1 && !final) return 'wait';
  const body = s.slice(i + dialect.begin.length, close === -1 ? s.length : close);
  const end = close === -1 ? s.length : close + dialect.end.length;
  const sep = body.indexOf(dialect.separator);
  if (sep === -1) return { text: '', end }; // no arguments yet: nothing to call
  let name = body.slice(0, sep).trim();
  let args = body.slice(sep + dialect.separator.length).trim();
  let id: string | undefined;
  if (dialect === KIMI) [id, name] = [name, KIMI_ID.exec(name)?.[1] ?? name];
  else if (name === 'function') {
    const v3 = DEEPSEEK_V3.exec(args);
    if (v3) [name, args] = [v3[1]!.trim(), v3[2]!];
  }
  return { text: hermesBlock(name, args, close !== -1, id), end };
}

/**
 * A call read from special tokens, as the Hermes block the text parser reads. Cut off by the end
 * of the output (`closed` false) in its arguments' JSON, the block is left open as they are, for
 * the text parser to repair and to say the call was not closed. Otherwise the arguments go as a
 * string, read as the client reads a structured call's: repaired when they are not quite JSON
 * (written loosely by a quantised model).
 */
export function hermesBlock(name: string, args: string, closed: boolean, id?: string): string {
  if (!closed && args.startsWith('{') && jsonObjectEnd(args, 0) === -1)
    return openHermesBlock(name, args, id);
  return `${openHermesBlock(name, JSON.stringify(args), id)}}</tool_call>`;
}

/**
 * A Hermes block left open after `args` (JSON): a call the end of the output cut off. `id`: the
 * call's id as the model wrote it (Kimi's), kept with the call.
 */
export function openHermesBlock(name: string, args: string, id?: string): string {
  const written = id === undefined ? '' : `"id": ${JSON.stringify(id)}, `;
  return `<tool_call>{"name": ${JSON.stringify(name)}, ${written}"arguments": ${args}`;
}
