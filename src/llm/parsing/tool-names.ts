/** The active tool a call's name means, when the model wrote it otherwise. Pure: no Nest import. */
import type { ToolSchemas } from './value-typing.js';
import { nameKey } from '../../common/plain-words.js';

/**
 * The tool a mangled name means, when only the mangling keeps it from matching: a `functions.`
 * prefix, format tokens left on it (gpt-oss through vLLM: `NAME<|channel|>commentary`), spaces;
 * a namespace before a dot (`default_api.get_weather`); another case or another way of joining
 * its words (`getWeather`, `Get-Weather` for `get_weather`) when it matches that tool alone.
 * Otherwise the model read "unknown tool" and called again: a round more. A name that means no
 * tool, or two, is kept as written.
 */
export function meantTool(name: string, tools: ToolSchemas): string {
  if (tools.has(name)) return name;
  const cleaned = name
    .split('<|')[0]!
    .trim()
    .replace(/^functions\./, '');
  if (tools.has(cleaned)) return cleaned;
  const last = cleaned.slice(cleaned.lastIndexOf('.') + 1);
  if (tools.has(last)) return last;
  const key = nameKey(last);
  const same = [...tools.keys()].filter((tool) => nameKey(tool) === key);
  return same.length === 1 ? same[0]! : name;
}
