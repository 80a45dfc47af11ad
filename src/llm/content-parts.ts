/** Content sent as a list of typed parts rather than a string (Mistral's API for Magistral). */
interface Part {
  type?: unknown;
  text?: unknown;
  thinking?: unknown;
}

const textOf = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : Array.isArray(value)
      ? value.map((p: Part) => (typeof p?.text === 'string' ? p.text : '')).join('')
      : '';

/**
 * The text and the reasoning of content given as parts (`[{"type":"text","text":…}]`, and
 * `{"type":"thinking","thinking":[{"type":"text","text":…}]}` for reasoning); undefined when the
 * content is not a list (a string, or none).
 */
export function contentParts(content: unknown): { text: string; thinking: string } | undefined {
  if (!Array.isArray(content)) return undefined;
  let text = '';
  let thinking = '';
  for (const part of content as Part[]) {
    if (typeof part !== 'object' || part === null) continue;
    if (part.type === 'thinking') thinking += textOf(part.thinking);
    else if (part.type === 'text' || part.type === undefined) text += textOf(part.text);
  }
  return { text, thinking };
}
