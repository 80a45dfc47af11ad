import { RETURN } from './harmony.js';
import { TagRewriter, type TagMend } from './tag-rewriter.js';
import { END_CALL, END_FN, END_THINK, FN, OPEN_CALL, THINK } from './tags.js';

// Markup of other models' answers, from servers without their parsers, that was spoken.

/** Reasoning under other tags than `<think>`: the caller heard the agent think aloud. */
const REASONING: readonly (readonly [string, string])[] = [
  ['<seed:think>', '</seed:think>'], // ByteDance Seed-OSS
  ['[THINK]', '[/THINK]'], // Mistral's Magistral
  ['◁think▷', '◁/think▷'], // Kimi-VL Thinking
  ['<thought>', '</thought>'], // EXAONE Deep
  ['<thinking>', '</thinking>'], // models tuned on Anthropic-style traces
  ['<reasoning>', '</reasoning>'], // models tuned on `<reasoning>` / `<answer>` traces
  ['<|START_THINKING|>', '<|END_THINKING|>'], // Cohere Command R7B, Command A
];
/** Tags around the answer after such reasoning: dropped. */
const AROUND_ANSWER = [
  ['<response>', '</response>'], // Granite
  ['<answer>', '</answer>'],
  ['<|START_RESPONSE|>', '<|END_RESPONSE|>'], // Cohere
].flat();
/**
 * Where a tool's result begins, written by the model itself after its call when the server did
 * not stop it there: the answer ends (the result, and the answer made up from it, were spoken
 * while the real call ran, and kept in the history).
 */
const RESULTS = [
  '<tool_response>', // Hermes, Qwen, GLM
  '<|observation|>', // GLM's role of tool results
  '[TOOL_RESULTS]', // Mistral
  '```tool_output', // Gemma
];

/**
 * Other chat formats' turn tokens, from a server that sends special tokens and does not stop at
 * them (a GGUF whose end-of-turn token is not its EOS): the start of another role's turn, or the
 * end of the assistant's, ends the answer (the model goes on to write the user's turn); a header
 * restating the assistant's own turn is dropped. (ChatML's and Llama's are the text parser's.)
 */
const TURN_ENDS = [
  '<end_of_turn>', // Gemma
  '<start_of_turn>user',
  '<|user|>', // Phi-3, Phi-4
  '<|system|>',
  '<|start_of_role|>user<|end_of_role|>', // Granite
  '<|start_of_role|>system<|end_of_role|>',
  '<|start_of_role|>tool_response<|end_of_role|>',
];
const OWN_TURN = [
  '<start_of_turn>model',
  '<|assistant|>',
  '<|start_of_role|>assistant<|end_of_role|>',
];

/**
 * DeepSeek V3.2's DSML tags (`<｜DSML｜invoke name="NAME">`, `<｜DSML｜parameter name="K"
 * string="true">`, inside `<｜DSML｜function_calls>`): the invoke dialect's (see TagDialects) with a
 * prefix, which is taken off.
 */
const DSML = [
  ['<｜DSML｜', '<'],
  ['</｜DSML｜', '</'],
] as const;

const MEANING = new Map<string, string>([
  ...DSML,
  ...REASONING.map(([open]) => [open, THINK] as const),
  ...REASONING.map(([, close]) => [close, END_THINK] as const),
  ...AROUND_ANSWER.map((tag) => [tag, ''] as const),
  ...RESULTS.map((tag) => [tag, RETURN] as const),
  ...TURN_ENDS.map((tag) => [tag, RETURN] as const),
  ...OWN_TURN.map((tag) => [tag, ''] as const),
]);
/**
 * The tags around a Hermes or Qwen3-Coder call: what is between them is the call's, its
 * arguments' text left as the model wrote it (an HTML body's `<answer>`, a note's `[THINK]`).
 */
const CALL_OPENERS = [OPEN_CALL, FN];
const CALL_CLOSERS = [END_CALL, END_FN];
const TOKENS = [...MEANING.keys(), ...CALL_OPENERS, ...CALL_CLOSERS];

/**
 * Rewrites other models' answer markup into what the text parser reads: reasoning tags as
 * `<think>` and `</think>` (a closer with no opener too: reasoning whose opening tag the prompt
 * held), the start of a tool's result or of another role's turn as the end of the answer
 * (`<|return|>`), DSML tags as the invoke dialect's; the tags around an answer, and a header of
 * the assistant's own turn, are dropped. Only what may still be one of these
 * tags is held back. Inside a Hermes or Qwen3-Coder call (`<tool_call>`, `<function=`, to their
 * closers) nothing is touched.
 */
export class AnswerMarkup extends TagRewriter {
  /** Inside a Hermes or Qwen3-Coder call: nothing but its end is touched. */
  private inCall = false;

  constructor() {
    super(['<', '[', '◁', '`']);
  }

  protected mend(s: string, i: number, final: boolean): TagMend | 'wait' | undefined {
    const token = this.tokenAt(s, i, TOKENS, final);
    if (token === undefined || token === 'wait') return token;
    const end = i + token.length;
    if (CALL_OPENERS.includes(token) || CALL_CLOSERS.includes(token)) {
      this.inCall = CALL_OPENERS.includes(token);
      return { text: token, end };
    }
    return this.inCall ? undefined : { text: MEANING.get(token)!, end };
  }
}
