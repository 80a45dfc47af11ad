import type { ChatMessage, LlmTool } from './llm.types.js';
import { messagesJson, requestJson, toolsJson } from './request-json.js';
import { ServerAdaptations } from './server-adaptations.js';

const history: ChatMessage[] = [
  { role: 'system', content: 'You are "helpful".\nBe brief.' },
  { role: 'user', content: 'Weather in Zürich? 🌦' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'w', arguments: '{"c":"Z"}' } }],
  },
  { role: 'tool', tool_call_id: 'c1', content: '{"t":21}' },
];
const tools: LlmTool[] = [
  { name: 'weather', description: 'Weather "now"', parameters: { type: 'object', properties: {} } },
  { name: 'time', description: '', parameters: { type: 'object' } },
];
const asIs = (schema: Record<string, unknown>) => schema;

/** A value whose `field` counts how often it is read (as JSON.stringify does). */
function counted<T extends object>(
  value: T,
  field: string,
  read: unknown,
  reads: { n: number },
): T {
  Object.defineProperty(value, field, { enumerable: true, get: () => (reads.n++, read) });
  return value;
}

describe('request JSON', () => {
  it('is the JSON of the body: the fields written first, then the rest', () => {
    const rest = { model: 'qwen', stream: true, tool_choice: 'auto' };
    const json = requestJson(rest, {
      messages: messagesJson(history),
      tools: toolsJson(tools, asIs),
    });
    const openAiTools = tools.map((t) => ({ type: 'function', function: t }));
    expect(json).toBe(JSON.stringify({ messages: history, tools: openAiTools, ...rest }));
    expect(requestJson({ model: 'm' }, { messages: '[]' })).toBe('{"messages":[],"model":"m"}');
    expect(requestJson({}, { messages: '[]' })).toBe('{"messages":[]}');
  });

  it('writes half a character (a lone surrogate) as U+FFFD, never as an escape a server cannot encode', () => {
    const cut: ChatMessage[] = [
      { role: 'user', content: 'Look 😀 and \ud83d' },
      { role: 'tool', tool_call_id: 'c\udc00', content: '{"name":"\udfff"}' },
    ];
    const half = [{ ...tools[0]!, description: 'Half \ud800 of it' }];
    const json = requestJson(
      { model: 'qwen', metadata: { note: 'x\ud800' } },
      { messages: messagesJson(cut), tools: toolsJson(half, asIs) },
    );
    expect(json).not.toMatch(/\\u[dD][89a-fA-F]/);
    const sent = JSON.parse(json) as Record<string, any>;
    expect(sent.messages[0].content).toBe('Look 😀 and \ufffd');
    expect(sent.messages[1]).toEqual({
      role: 'tool',
      tool_call_id: 'c\ufffd',
      content: '{"name":"\ufffd"}',
    });
    expect(sent.tools[0].function.description).toBe('Half \ufffd of it');
    expect(sent.metadata.note).toBe('x\ufffd');
  });

  it('leaves out a field of the rest (LLM_EXTRA_BODY) that is written already', () => {
    const json = requestJson({ messages: ['other'], model: 'm' }, { messages: messagesJson([]) });
    expect(json).toBe('{"messages":[],"model":"m"}');
  });

  it('writes each message and each schema once, however often they are sent again', () => {
    const reads = { n: 0 };
    const user = counted({ role: 'user' } as ChatMessage, 'content', 'hello', reads);
    expect(JSON.parse(messagesJson([user, ...history]))[0]).toEqual({
      role: 'user',
      content: 'hello',
    });
    expect(JSON.parse(messagesJson([...history, user]))[4]).toEqual({
      role: 'user',
      content: 'hello',
    });
    const schema = counted({}, 'type', 'object', reads);
    const tool = { name: 'x', description: 'y', parameters: schema };
    for (let i = 0; i < 3; i++) toolsJson([tool, ...tools], asIs);
    expect(reads.n).toBe(2);
  });

  it('writes each message once per form it is sent in (a server adaptation), and in the new form after a change', () => {
    const formed: ChatMessage[] = [];
    const form = (label: string) => (message: ChatMessage) => {
      formed.push(message);
      return message.role === 'user'
        ? { ...message, content: `${message.content} (${label})` }
        : message;
    };
    const [a, b] = [form('a'), form('b')];
    for (let i = 0; i < 3; i++) messagesJson(history, a);
    expect(formed).toHaveLength(history.length);
    expect(JSON.parse(messagesJson(history, b))[1].content).toBe('Weather in Zürich? 🌦 (b)');
    expect(JSON.parse(messagesJson(history, a))[1].content).toBe('Weather in Zürich? 🌦 (a)');
    expect(formed).toHaveLength(2 * history.length);
  });

  it('writes each tool once also when tools share a schema, and again when its description changes', () => {
    const reads = { n: 0 };
    const shared = counted({}, 'type', 'object', reads);
    const a = { name: 'a', description: 'A', parameters: shared };
    const b = { name: 'b', description: 'B', parameters: shared };
    for (let i = 0; i < 3; i++) toolsJson([a, b], asIs);
    expect(reads.n).toBe(2);
    const items = JSON.parse(toolsJson([a, { ...b, description: 'B2' }], asIs));
    expect(items.map((t: any) => t.function.description)).toEqual(['A', 'B2']);
    expect(reads.n).toBe(3);
  });

  it("changes each tool's item by `finish` once, and writes it again for another `finish`", () => {
    const finished: string[] = [];
    const tool = { name: 'a', description: 'A', parameters: { type: 'object' } };
    const finish = (mark: string) => (json: string, name: string) => {
      finished.push(name);
      return json.replace('"A"', `"A${mark}"`);
    };
    const [one, two] = [finish('1'), finish('2')];
    for (let i = 0; i < 3; i++) toolsJson([tool], asIs, one);
    expect(finished).toEqual(['a']);
    expect(JSON.parse(toolsJson([tool], asIs, two))[0].function.description).toBe('A2');
    expect(JSON.parse(toolsJson([tool], asIs))[0].function.description).toBe('A');
    expect(finished).toEqual(['a', 'a']);
  });

  it('writes a schema as the server takes it, once per schema', () => {
    const adaptations = new ServerAdaptations();
    const parameters = (schema: Record<string, unknown>) => adaptations.parameters(schema);
    expect(JSON.parse(toolsJson(tools, parameters))[0].function.parameters).toEqual({
      type: 'object',
      properties: {},
    });
    adaptations.learn('properties: should be non-empty for OBJECT type', 'auto');
    expect(adaptations.parameters(tools[0]!.parameters)).toBe(
      adaptations.parameters(tools[0]!.parameters),
    );
    expect(JSON.parse(toolsJson(tools, parameters))[0].function.parameters).toEqual({
      type: 'object',
    });
  });
});
