/** `JSON.parse`, or `undefined` when the text is not JSON (JSON itself never parses to undefined). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
