import { glmStart } from './glm-call.js';
import { jsonBodyStart } from './hermes-block.js';
import { nameTagStart } from './hermes-call.js';
import type { ToolSchemas } from './qwen-xml-call.js';
import { FN, OPEN_CALL } from './tags.js';

/**
 * What a `<tool_call>` at the start of `buf` opens: a Qwen3-Coder XML call (its `<function=`
 * after `skip` characters), a Hermes JSON block, a GLM call; nothing yet (`wait`); markup cut off
 * by the end of the output (`cut`); or nothing at all: the opener is mentioned in prose.
 */
export function callOpener(
  buf: string,
  final: boolean,
  schemas: ToolSchemas,
): { kind: 'xml'; skip: number } | { kind: 'hermes' | 'glm' | 'wait' | 'cut' | 'prose' } {
  let j = OPEN_CALL.length;
  while (j < buf.length && /\s/.test(buf[j]!)) j++;
  const rest = buf.slice(j);
  if (rest.startsWith(FN)) return { kind: 'xml', skip: j };
  const named = nameTagStart(rest, final);
  const json = jsonBodyStart(rest, final);
  if (json === 'yes' || named === 'yes') return { kind: 'hermes' };
  const glm = glmStart(rest, final, schemas);
  if (glm === 'yes') return { kind: 'glm' };
  if (named === 'wait' || glm === 'wait' || json === 'wait') return { kind: 'wait' };
  // Nothing after the opener yet (or the start of `<function=`): at the end of the output it is
  // markup cut off by truncation.
  if (FN.startsWith(rest)) return { kind: final ? 'cut' : 'wait' };
  return { kind: 'prose' };
}
