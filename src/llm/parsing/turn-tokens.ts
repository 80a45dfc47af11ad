// Chat-format special tokens in the text, which reach it only from a server that sends special
// tokens (`skip_special_tokens: false`) and does not stop at them.

const IM_START = '<|im_start|>';
const HEADER_START = '<|start_header_id|>';
const HEADER_END = '<|end_header_id|>';
/**
 * Tokens that end a turn: the answer ends there (Llama's `<|eom_id|>` ends a message for a call;
 * Harmony's `<|return|>`, see harmony.ts).
 */
const END_OF_TURN = [
  '<|im_end|>',
  '<|endoftext|>',
  '<|eot_id|>',
  '<|eom_id|>',
  '<|end_of_text|>',
  '<|return|>',
];
/** Every token watched for: those that end a turn, and those that start one (then its role). */
export const TURN_TOKENS = [...END_OF_TURN, IM_START, HEADER_START];

const HEADER = /^(<\|im_start\|>(\w+)[ \t]*\r?\n|<\|start_header_id\|>(\w+)<\|end_header_id\|>\s*)/;

/** `s` may still become a turn header: its role, or the end of the header, is arriving. */
function partialHeader(s: string): boolean {
  if (s.startsWith(IM_START)) return /^\w*[ \t]*\r?$/.test(s.slice(IM_START.length));
  if (!s.startsWith(HEADER_START)) return false;
  return HEADER_END.startsWith(s.slice(HEADER_START.length).replace(/^\w*/, ''));
}

/**
 * What a turn token at the start of `s` means for the answer: `end` (an end-of-turn token, or
 * the start of a turn for the user, the system or a tool, which the model goes on to write),
 * `skip` the `length` characters of a header that restates the assistant's own turn (some
 * servers let the model write it), or `wait` while the role has not arrived.
 */
export function turnToken(
  s: string,
  final: boolean,
): { kind: 'end' } | { kind: 'skip'; length: number } | { kind: 'wait' } {
  if (END_OF_TURN.some((t) => s.startsWith(t))) return { kind: 'end' };
  const header = HEADER.exec(s);
  // A header that reaches the end of what has arrived may have more whitespace to come.
  if (header && (final || header[0].length < s.length)) {
    const role = header[2] ?? header[3];
    return role === 'assistant' ? { kind: 'skip', length: header[0].length } : { kind: 'end' };
  }
  return !final && (header || partialHeader(s)) ? { kind: 'wait' } : { kind: 'end' };
}
