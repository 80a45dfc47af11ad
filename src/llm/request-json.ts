import type { ChatMessage, LlmTool } from './llm.types.js';

// The API is stateless: every request carries the conversation's whole history (tool results
// included) and every tool's schema again. Both are written to JSON once here and reused: a
// message never changes once made (`ChatMessage` is read-only), and a tool's schema is replaced,
// never changed in place. What is kept goes with the message or schema it was written from.
const messages = new WeakMap<ChatMessage, string>();
/** A tool's item of the `tools` array, by the schema sent (a tool's name or description may change alone). */
const toolItems = new WeakMap<object, { name: string; description: string; json: string }>();

/** `list` as a JSON array, each message written only the first time it is sent. */
export function messagesJson(list: readonly ChatMessage[]): string {
  const items = list.map((message) => {
    let json = messages.get(message);
    if (json === undefined) messages.set(message, (json = JSON.stringify(message)));
    return json;
  });
  return `[${items.join(',')}]`;
}

/**
 * `tools` as the request's `tools` array (`{"type":"function","function":{…}}`), each tool, its
 * schema as `parameters` gives it for this server, written only the first time it is sent.
 */
export function toolsJson(
  tools: readonly LlmTool[],
  parameters: (schema: Record<string, unknown>) => Record<string, unknown>,
): string {
  const items = tools.map(({ name, description, parameters: schema }) => {
    const sent = parameters(schema);
    const item = toolItems.get(sent);
    if (item?.name === name && item.description === description) return item.json;
    const json = JSON.stringify({
      type: 'function',
      function: { name, description, parameters: sent },
    });
    toolItems.set(sent, { name, description, json });
    return json;
  });
  return `[${items.join(',')}]`;
}

/**
 * A request body as JSON: the fields already `written` as JSON first (a field of the same name in
 * `rest` is left out), then those of `rest`.
 */
export function requestJson(
  rest: Record<string, unknown>,
  written: Record<string, string>,
): string {
  const others = { ...rest };
  for (const name of Object.keys(written)) delete others[name];
  const fields = JSON.stringify(others);
  const first = Object.entries(written).map(([name, json]) => `${JSON.stringify(name)}:${json}`);
  return `{${first.join(',')}${fields === '{}' ? '}' : `,${fields.slice(1)}`}`;
}
