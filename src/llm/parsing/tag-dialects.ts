import { TagRewriter, type TagMend } from './tag-rewriter.js';
import {
  functionGemmaCall,
  START_FUNCTION_CALL,
  START_FUNCTION_RESPONSE,
} from './function-gemma.js';
import { RETURN } from './harmony.js';
import type { ToolSchemas } from './value-typing.js';
import { SECTION_TOKENS, SPECIAL_TOKENS, specialTokenCall } from './special-token-calls.js';
import { END_CALL, END_FN, FN, OPEN_CALL, PARAM } from './tags.js';

// Tags of the "invoke" dialect (Anthropic's XML, which DeepSeek, Kimi and Qwen models imitate,
// and MiniMax-M2's native format), and the wrappers around its calls.
const INVOKE = '<invoke';
const END_INVOKE = '</invoke>';
/** `<call=NAME>` and `<tool=NAME>`, drifts of `<invoke=NAME>` that some models write, and their ends. */
const INVOKE_LIKE = ['<call', '<tool'];
const END_INVOKE_LIKE = ['</call>', '</tool>'];
const NAMED_PARAM = '<parameter ';
/**
 * Wrappers around calls, dropped as markup wherever they are: the invoke dialect's, and those of
 * models whose calls inside are JSON (read as bare calls) or Qwen3-Coder XML.
 */
const WRAPPERS = [
  '<function_calls>',
  '</function_calls>',
  '<minimax:tool_call>',
  '</minimax:tool_call>',
  '<|tool_call|>', // IBM Granite, Phi-4-mini
  '<|/tool_call|>',
  '<tool_calls>', // Hunyuan, Jamba, MiniMax-M1
  '</tool_calls>',
  '<seed:tool_call>', // ByteDance Seed-OSS
  '</seed:tool_call>',
  '<longcat_tool_call>', // Meituan LongCat
  '</longcat_tool_call>',
  '<|action_start|><|plugin|>', // InternLM
  '<|action_end|>',
  '<|tools_prefix|>', // Apertus
  '<|tools_suffix|>',
  '<TOOLCALL>', // NVIDIA Llama-Nemotron, Nemotron Nano
  '</TOOLCALL>',
  '<|START_ACTION|>', // Cohere Command R7B, Command A
  '<|END_ACTION|>',
  '<|python_start|>', // Llama 4
  '<|python_end|>',
];
/** `<invoke name="NAME">`, or `<invoke=NAME>` as models also write it (and `<call=`, `<tool=`). */
const INVOKE_TAG = /^<(?:invoke|call|tool)(?:\s+name\s*=|\s*=)\s*["']?([^"'<>\s]+)["']?\s*>/;
/** `<function name="NAME">`, a Hermes-family variant of `<function=NAME>` (llama.cpp reads it too). */
const NAMED_FN = '<function ';
const NAMED_FN_TAG = /^<function\s+name\s*=\s*["']?([^"'<>\s]+)["']?\s*>/;
/** A wrapper some Hermes-style models use instead of `<tool_call>` around JSON (see `wrapped`). */
const FUNCTION_CALL = '<function_call>';
const END_FUNCTION_CALL = '</function_call>';
/** Other attributes may follow the name (DeepSeek V3.2's `string="true"`). */
const NAMED_PARAM_TAG =
  /^<parameter\s+name\s*=\s*["']?([^"'<>\s]+)["']?(?:\s+[\w-]+\s*=\s*["'][^"'<>]*["'])*\s*>/;
/** An opening tag longer than this is none of these (and is not waited for). */
const MAX_TAG = 300;
/** A tag of those whose attributes may still be arriving. */
const OPEN_TAG = /^<(invoke|call|tool|parameter|function)((\s|(?<=invoke|call|tool)=)[^<>\n]*)?$/;

const WATCHED: string[] = [
  PARAM,
  FN,
  END_FN,
  INVOKE,
  END_INVOKE,
  ...INVOKE_LIKE,
  ...END_INVOKE_LIKE,
  NAMED_PARAM,
  NAMED_FN,
  FUNCTION_CALL,
  END_FUNCTION_CALL,
  ...WRAPPERS,
  ...SPECIAL_TOKENS,
  START_FUNCTION_CALL,
  START_FUNCTION_RESPONSE,
];
const LONGEST_WATCHED = Math.max(...WATCHED.map((t) => t.length));
/** `s` from `i` on is a proper prefix of `tag`: the tag may be arriving. */
const isProperPrefix = (s: string, i: number, tag: string) =>
  tag.length > s.length - i && tag.startsWith(s.slice(i));
const AFTER_DRIFTED_NAME = [PARAM, END_FN];
/** Markup around calls, dropped. */
const DROPPED = [...WRAPPERS, ...SECTION_TOKENS];

interface Mend extends TagMend {
  /** The function open after it: of which dialect, or none (`null`); unchanged when undefined. */
  open?: Open | null;
}

type Open = 'qwen' | 'invoke';

/**
 * Rewrites other call dialects into the Qwen3-Coder XML that the text parser reads, before it
 * reads it:
 * - Qwen3.6's drift that writes the call's name as a parameter, with no `<tool_call>` or
 *   `<function=` around it (`<parameter=bash>\n<parameter=command>\nls\n</parameter>\n</function>`):
 *   outside a function, `<parameter=NAME>` where NAME is an active tool and the next tag (after
 *   whitespace) is another `<parameter=` or `</function>` becomes `<function=NAME>`;
 * - the "invoke" dialect: `<invoke name="NAME">` or `<invoke=NAME>` (also `<call=NAME>` and
 *   `<tool=NAME>`; NAME an active tool) becomes `<function=NAME>`, `</invoke>` (`</call>`,
 *   `</tool>` after those) becomes `</function>`, `<parameter name="K">` inside it becomes `<parameter=K>`, and the wrappers
 *   (`<function_calls>`, `<minimax:tool_call>`) are dropped;
 * - `<function name="NAME">` (NAME an active tool) becomes `<function=NAME>`, and a
 *   `<function_call>` wrapper around JSON becomes `<tool_call>` (Hermes-family variants);
 * - Kimi K2's and DeepSeek's special-token calls (see special-token-calls.ts), and FunctionGemma's
 *   (see function-gemma.ts), become Hermes blocks; FunctionGemma's `<start_function_response>`
 *   ends the answer (Harmony's `<|return|>`, which the text parser ends it at).
 * Inside a Qwen function nothing but its end is touched, so parameter values keep any such text
 * (a drifted name opens a Qwen function; an invoke opens one whose named parameters are read).
 * Only what may still be one of these tags is held back (a suffix such as `<param` or
 * `<invoke name="get_`, or a drifted name whose next tag has not arrived).
 */
export class TagDialects extends TagRewriter<Mend> {
  /** The function open in the text so far, and in which dialect it was written. */
  private open: Open | null = null;

  constructor(private readonly schemas: ToolSchemas) {
    super();
  }

  protected override applied(mend: Mend): void {
    if (mend.open !== undefined) this.open = mend.open;
  }

  /** What the tag at `i` becomes; `wait` while that is undecided; undefined to leave it. */
  protected mend(s: string, i: number, final: boolean): Mend | 'wait' | undefined {
    if (!final && s.length - i < LONGEST_WATCHED && WATCHED.some((t) => isProperPrefix(s, i, t)))
      return 'wait';
    if (s.startsWith(END_FN, i)) return { text: END_FN, end: i + END_FN.length, open: null };
    // Inside a Qwen function its values are the model's own text: only its end matters.
    if (this.open === 'qwen') return undefined;
    if (s.startsWith(FN, i)) return { text: FN, end: i + FN.length, open: 'qwen' };
    if (s.startsWith(END_INVOKE, i))
      return { text: END_FN, end: i + END_INVOKE.length, open: null };
    const endLike = END_INVOKE_LIKE.find((t) => s.startsWith(t, i));
    if (endLike && this.open === 'invoke')
      return { text: END_FN, end: i + endLike.length, open: null };
    const special = specialTokenCall(s, i, final) ?? functionGemmaCall(s, i, final);
    if (special !== undefined) return special;
    if (s.startsWith(START_FUNCTION_RESPONSE, i)) return { text: RETURN, end: s.length };
    const wrapper = DROPPED.find((w) => s.startsWith(w, i));
    if (wrapper) return { text: '', end: i + wrapper.length };
    if ([INVOKE, ...INVOKE_LIKE, NAMED_PARAM, NAMED_FN].some((t) => s.startsWith(t, i)))
      return this.named(s, i, final);
    if (s.startsWith(FUNCTION_CALL, i)) return this.wrapped(s, i, final);
    if (s.startsWith(END_FUNCTION_CALL, i))
      return { text: END_CALL, end: i + END_FUNCTION_CALL.length };
    if (this.open === null && s.startsWith(PARAM, i)) return this.drifted(s, i, final);
    return undefined;
  }

  /** `<invoke name="NAME">`, or `<parameter name="K">` inside a function. */
  private named(s: string, i: number, final: boolean): Mend | 'wait' | undefined {
    const rest = s.slice(i, i + MAX_TAG);
    const invoke = INVOKE_TAG.exec(rest);
    if (invoke && this.schemas.has(invoke[1]!))
      return { text: `${FN}${invoke[1]}>`, end: i + invoke[0].length, open: 'invoke' };
    const fn = NAMED_FN_TAG.exec(rest);
    if (fn && this.schemas.has(fn[1]!))
      return { text: `${FN}${fn[1]}>`, end: i + fn[0].length, open: 'qwen' };
    const param = NAMED_PARAM_TAG.exec(rest);
    if (param && this.open === 'invoke')
      return { text: `${PARAM}${param[1]}>`, end: i + param[0].length };
    const arriving = !final && s.length - i <= MAX_TAG && OPEN_TAG.test(rest);
    return arriving ? 'wait' : undefined;
  }

  /** `<function_call>` before JSON is a Hermes `<tool_call>`; elsewhere it is left as text. */
  private wrapped(s: string, i: number, final: boolean): Mend | 'wait' | undefined {
    const next = s.slice(i + FUNCTION_CALL.length).trimStart();
    if (next.startsWith('{') || next.startsWith('['))
      return { text: OPEN_CALL, end: i + FUNCTION_CALL.length };
    return next === '' && !final ? 'wait' : undefined;
  }

  /** Qwen3.6's call name written as a parameter (see the class comment). */
  private drifted(s: string, i: number, final: boolean): Mend | 'wait' | undefined {
    const gt = s.indexOf('>', i);
    const raw = s.slice(i + PARAM.length, gt === -1 ? s.length : gt);
    if (/[<\n]/.test(raw)) return undefined;
    if (gt === -1) return final ? undefined : 'wait';
    const name = raw.trim();
    if (!this.schemas.has(name)) return undefined;
    const next = s.slice(gt + 1).trimStart();
    if (AFTER_DRIFTED_NAME.some((t) => next.startsWith(t)))
      return { text: `${FN}${name}>`, end: gt + 1, open: 'qwen' };
    if (!final && AFTER_DRIFTED_NAME.some((t) => t.startsWith(next))) return 'wait';
    return undefined;
  }
}
