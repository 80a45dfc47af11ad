import type { ChatMessage, LlmTool } from './llm.types.js';
import { wholeCharacters as whole } from '../common/whole-characters.js';

// The API is stateless: every request carries the conversation's whole history (tool results
// included) and every tool's schema again. Both are written to JSON once here and reused: a
// message never changes once made (`ChatMessage` is read-only), and a tool's schema is replaced,
// never changed in place. What is kept goes with the message or schema it was written from.
const messages = new WeakMap<ChatMessage, string>();
/** The same, by the change of form messages were sent through (see ServerAdaptations). */
const changedMessages = new WeakMap<object, WeakMap<ChatMessage, string>>();
/**
 * Each tool's item of the `tools` array, by the schema sent, then by name (tools without
 * parameters share one schema; a tool's description may change alone). At most this many names
 * are kept for one schema (a session's own tools may all share it).
 */
const toolItems = new WeakMap<object, Map<string, ToolItem>>();
interface ToolItem {
  description: string;
  json: string;
  finish: ((json: string, name: string) => string) | undefined;
}
const NAMES_PER_SCHEMA = 64;

/**
 * `list` as a JSON array, each message written only the first time it is sent; `form`, when
 * given, changes each message before it is written (the same way every time it is given).
 */
export function messagesJson(
  list: readonly ChatMessage[],
  form?: (message: ChatMessage) => ChatMessage,
): string {
  let kept = messages;
  if (form) {
    kept = changedMessages.get(form) ?? new WeakMap<ChatMessage, string>();
    changedMessages.set(form, kept);
  }
  const items = list.map((message) => {
    let json = kept.get(message);
    if (json === undefined)
      kept.set(message, (json = JSON.stringify(form ? form(message) : message, whole)));
    return json;
  });
  return `[${items.join(',')}]`;
}

/**
 * `tools` as the request's `tools` array (`{"type":"function","function":{…}}`), each tool, its
 * schema as `parameters` gives it for this server, written only the first time it is sent (and
 * changed by `finish`, when given).
 */
export function toolsJson(
  tools: readonly LlmTool[],
  parameters: (schema: Record<string, unknown>) => Record<string, unknown>,
  finish?: (json: string, name: string) => string,
): string {
  const items = tools.map(({ name, description, parameters: schema }) => {
    const sent = parameters(schema);
    let byName = toolItems.get(sent);
    if (!byName) toolItems.set(sent, (byName = new Map<string, ToolItem>()));
    const item = byName.get(name);
    if (item?.description === description && item.finish === finish) return item.json;
    if (byName.size >= NAMES_PER_SCHEMA) byName.clear();
    const written = JSON.stringify(
      { type: 'function', function: { name, description, parameters: sent } },
      whole,
    );
    const json = finish ? finish(written, name) : written;
    byName.set(name, { description, json, finish });
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
  const fields = JSON.stringify(others, whole);
  const first = Object.entries(written).map(([name, json]) => `${JSON.stringify(name)}:${json}`);
  return `{${first.join(',')}${fields === '{}' ? '}' : `,${fields.slice(1)}`}`;
}
