import { parsedCall, type ParsedTextCall } from './hermes-call.js';
import { ownValue, setOwn } from './json.js';
import { END_CALL } from './tags.js';
import { typeValue, type ToolSchemas } from './value-typing.js';

// GLM-4.5 to 4.7's tool calls (what vLLM's glm45 / glm47 parsers read), met in the text when the
// server runs GLM with another parser (qwen3_coder is a common choice) or none:
//   <tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n</tool_call>   (4.5, 4.6)
//   <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>        (4.7)

export const ARG_KEY = '<arg_key>';
const NAME = /^[A-Za-z_][\w.\-:]*/;
const PAIR = /<arg_key>([\s\S]*?)<\/arg_key>\s*<arg_value>([\s\S]*?)<\/arg_value>/g;

/**
 * Whether `rest`, the text after `<tool_call>` and its whitespace, opens a GLM call: a name, then
 * `<arg_key>`, or `</tool_call>` when the name is an active tool's (without that check
 * `<tool_call>here</tool_call>` in prose would be a call). `wait` while it cannot tell yet.
 */
export function glmStart(
  rest: string,
  final: boolean,
  schemas: ToolSchemas,
): 'yes' | 'no' | 'wait' {
  const name = NAME.exec(rest)?.[0];
  if (name === undefined) return 'no';
  const after = rest.slice(name.length).trimStart();
  if (after.startsWith(ARG_KEY)) return 'yes';
  if (after.startsWith(END_CALL)) return schemas.has(name) ? 'yes' : 'no';
  if (final) return 'no';
  if (after === '' || ARG_KEY.startsWith(after) || END_CALL.startsWith(after)) return 'wait';
  return 'no';
}

/**
 * The GLM call at the start of `buf` (which starts with `<tool_call>`), up to the first
 * `</tool_call>` (as vLLM reads it); `undefined` while that has not arrived. At the end of the
 * output, a call cut off there keeps its complete arguments (and says it was not closed). Values are typed from the tool's
 * schema as vLLM does: strings as written, anything else as JSON or a Python literal.
 */
export function glmBlock(
  buf: string,
  final: boolean,
  schemas: ToolSchemas,
): { end: number; calls: ParsedTextCall[] } | undefined {
  const close = buf.indexOf(END_CALL);
  if (close === -1 && !final) return undefined;
  const end = close === -1 ? buf.length : close + END_CALL.length;
  const body = buf.slice(buf.indexOf('>') + 1, close === -1 ? buf.length : close);
  const name = NAME.exec(body.trimStart())?.[0];
  if (name === undefined) return { end, calls: [] };
  const properties = schemas.get(name)?.properties as Record<string, unknown> | undefined;
  const args: Record<string, unknown> = {};
  for (const [, key, value] of body.matchAll(PAIR)) {
    const schema = ownValue(properties, key!.trim()) as Record<string, unknown> | undefined;
    setOwn(args, key!.trim(), typeValue(value!, schema ?? {}));
  }
  // Cut off there, more arguments may have been coming: see ParsedTextCall's `unclosed`.
  return { end, calls: [{ ...parsedCall(name, args), ...(close === -1 && { unclosed: true }) }] };
}
