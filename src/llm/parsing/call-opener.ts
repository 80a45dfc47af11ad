import { bareFunctionStart } from './function-tag.js';
import { glmStart } from './glm-call.js';
import { jsonBodyStart } from './hermes-block.js';
import { nameTagStart } from './hermes-call.js';
import type { ToolSchemas } from './value-typing.js';
import { END_CALL, END_TOOLS, FN, OPEN_CALL, OPEN_TOOLS } from './tags.js';

/** A tag: `<`, a name, then what can follow a tag's name. */
const TAG = /^<\/?[A-Za-z_][\w:.-]*[\s=>/]/;
/** What may still become one (a tag's name is short). */
const TAG_START = /^<\/?([A-Za-z_][\w:.-]{0,40})?$/;

/** What an opener at the start of the buffer begins (see `callOpener`). */
export type Opener =
  | { kind: 'xml'; skip: number; wrapped: boolean }
  | { kind: 'hermes'; closer: string }
  | { kind: 'glm' | 'wait' | 'cut' }
  | { kind: 'prose'; length: number };

/**
 * What `opener` (`<tool_call>`, a bare `<function=`, or Qwen2.5-Coder's `<tools>`) at the start
 * of `buf` begins: a Qwen3-Coder XML call (its `<function=` after `skip` characters), a Hermes
 * JSON block closed by `closer`, a GLM call; nothing yet (`wait`); markup cut off by the end of
 * the output (`cut`); or nothing at all: the opener is mentioned in prose.
 */
export function callOpener(
  opener: string,
  buf: string,
  final: boolean,
  schemas: ToolSchemas,
): Opener {
  const prose: Opener = { kind: 'prose', length: opener.length };
  if (opener === FN) {
    const start = bareFunctionStart(buf, final);
    return start === 'yes'
      ? { kind: 'xml', skip: 0, wrapped: false }
      : start === 'wait'
        ? { kind: 'wait' }
        : prose;
  }
  let j = opener.length;
  while (j < buf.length && /\s/.test(buf[j]!)) j++;
  const rest = buf.slice(j);
  const json = jsonBodyStart(rest, final);
  if (opener === OPEN_TOOLS) {
    // Only a JSON body makes `<tools>` a call (Qwen2.5-Coder imitating its system prompt).
    return json === 'yes'
      ? { kind: 'hermes', closer: END_TOOLS }
      : json === 'wait'
        ? { kind: 'wait' }
        : prose;
  }
  if (opener !== OPEN_CALL) return prose;
  if (rest.startsWith(FN)) return { kind: 'xml', skip: j, wrapped: true };
  const named = nameTagStart(rest, final);
  if (json === 'yes' || named === 'yes') return { kind: 'hermes', closer: END_CALL };
  const glm = glmStart(rest, final, schemas);
  if (glm === 'yes') return { kind: 'glm' };
  if (named === 'wait' || glm === 'wait' || json === 'wait') return { kind: 'wait' };
  // Nothing after the opener yet (or the start of `<function=`): at the end of the output it is
  // markup cut off by truncation.
  if (FN.startsWith(rest)) return { kind: final ? 'cut' : 'wait' };
  // A tag right after the opener that begins no call read here (`<parameter=` with no function,
  // `<function>` with no name, `</tool_call>`): a malformed call, dropped whole as markup (its
  // body is no JSON call either), never shown or spoken.
  if (TAG.test(rest)) return { kind: 'hermes', closer: END_CALL };
  if (!final && TAG_START.test(rest)) return { kind: 'wait' };
  return prose;
}
