import type { Tool, ToolDefinitionInput } from './tool-definition.js';

/** The fields HTTP and code tools share that are left out when not given. */
export function optionalFields(def: ToolDefinitionInput): Partial<Tool> {
  return {
    ...(def.timeout_secs ? { timeoutSecs: def.timeout_secs } : {}),
    ...(def.retries !== undefined ? { retries: def.retries } : {}),
    ...(def.result_max_chars !== undefined ? { resultMaxChars: def.result_max_chars } : {}),
    ...(def.wait_phrase !== undefined ? { waitPhrase: phrasesOf(def.wait_phrase) } : {}),
    ...(def.modalities ? { modalities: def.modalities } : {}),
    ...(def.confirm ? { confirm: true } : {}),
    ...(def.confirm_prompt ? { confirmPrompt: def.confirm_prompt } : {}),
  };
}

/** A `wait_phrase` as phrases by lower-case language code (`*`: any language). */
function phrasesOf(phrase: string | Record<string, string>): Record<string, string> {
  if (typeof phrase === 'string') return { '*': phrase };
  return Object.fromEntries(Object.entries(phrase).map(([code, p]) => [code.toLowerCase(), p]));
}
