// Names in `<function=NAME>` and `<parameter=NAME>` tags, and whether a `<function=` met in
// prose, with no `<tool_call>` around it, opens a call or is only mentioned.
import { END_CALL, END_FN, FN, PARAM } from './tags.js';

const NAME_START = '[\\p{L}_]';
const NAME_CHAR = '[\\p{L}\\p{M}\\p{N}_.\\-:]';

/**
 * A name the parser believes without a schema's word: letters of any script, digits, `_`, `.`,
 * `-`, `:` (a function name such as `获取天气` is still a call, so the model hears it is unknown;
 * a phantom `{{ tc.name }}` is not). A parameter the tool declares is believed whatever its name.
 */
export const NAME_OK = new RegExp(`^${NAME_START}${NAME_CHAR}*$`, 'u');
/**
 * The same inside `<tool_call>`, where the model surely meant a call: up to 8 such words apart
 * by one space (`<function=get weather>`), so that the model hears the tool is unknown and calls
 * again, as it does for a name misspelt, rather than its call vanishing.
 */
export const WRAPPED_NAME_OK = new RegExp(
  `^${NAME_START}${NAME_CHAR}*(?: ${NAME_CHAR}+){0,7}$`,
  'u',
);

/** The name written in a tag: trimmed, and unquoted (`<function="get_weather">`). */
export function tagName(raw: string): string {
  const name = raw.trim();
  const q = name[0];
  return (q === '"' || q === "'") && name.length > 1 && name.endsWith(q)
    ? name.slice(1, -1).trim()
    : name;
}

/** What may follow a bare call's `<function=NAME>`, after whitespace. */
const CALL_BODY = [PARAM, END_FN, END_CALL, '{'];
/** Past this, a name or the whitespace after it is prose, not a tag still being written. */
const MAX_NAME = 128;
const MAX_GAP = 64;

/**
 * Whether `s`, which starts with `<function=` met in prose, opens a call (`yes`), is only
 * mentioned (`no`: "use <function=name> tags", "the tag <function=foo is…"), or cannot tell yet
 * (`wait`). A call's name is one word and its body follows: a parameter, a JSON object of
 * arguments (Llama 3.1's `<function=NAME>{…}</function>`) or the end of the function. A name cut
 * off by a newline or `<` stays markup, as does anything cut off by the end of the output.
 */
export function bareFunctionStart(s: string, final: boolean): 'yes' | 'no' | 'wait' {
  const undecided = final ? 'yes' : 'wait';
  let i = FN.length;
  while (i < s.length && !'>\n<'.includes(s[i]!)) i++;
  const raw = s.slice(FN.length, i);
  if (raw.length > MAX_NAME) return 'no';
  if (i === s.length || s[i] !== '>') {
    // The name is still being written (or a newline or '<' cut it: markup, as before).
    const sofar = raw.trim().replace(/^["']|["']$/g, '');
    if (sofar !== '' && !NAME_OK.test(sofar)) return 'no';
    return i === s.length ? undecided : 'yes';
  }
  if (!NAME_OK.test(tagName(raw))) return 'no';
  let j = i + 1;
  while (j < s.length && /\s/.test(s[j]!)) j++;
  if (j - i > MAX_GAP) return 'no';
  const rest = s.slice(j);
  if (rest === '') return undecided;
  if (CALL_BODY.some((t) => rest.startsWith(t))) return 'yes';
  return CALL_BODY.some((t) => t.startsWith(rest)) ? undecided : 'no';
}
