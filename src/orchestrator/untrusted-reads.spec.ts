import type { ChatMessage } from '../llm/llm.types.js';
import type { Tool } from '../tools/tool-definition.js';
import { needsApproval, readUntrusted } from './untrusted-reads.js';
import { resultMessage } from './background-calls.js';

const tool = (over: Partial<Tool>) => ({ name: 'x', kind: 'http', method: 'GET', ...over }) as Tool;
const tools = new Map([
  ['read_page', tool({ name: 'read_page', untrusted: true })],
  ['weather', tool({ name: 'weather' })],
]);
const called = (id: string, name: string): ChatMessage[] => [
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name, arguments: '{}' } }],
  },
  { role: 'tool', tool_call_id: id, content: 'result' },
];

describe('readUntrusted', () => {
  it("is true once the history holds an untrusted tool's result, and not for its call alone", () => {
    expect(readUntrusted([{ role: 'user', content: 'hi' }, ...called('a', 'weather')], tools)).toBe(
      false,
    );
    expect(readUntrusted([...called('a', 'weather'), ...called('b', 'read_page')], tools)).toBe(
      true,
    );
    expect(readUntrusted(called('b', 'read_page').slice(0, 1), tools)).toBe(false);
    // A tool no longer installed is not known to be untrusted.
    expect(readUntrusted(called('c', 'gone'), tools)).toBe(false);
    // A background call's result, told in a user message of a later turn.
    const told = (name: string): ChatMessage => ({
      role: 'user',
      content: resultMessage({ id: 'd', name, ok: true, ms: 5, text: 'page' }),
    });
    expect(readUntrusted([told('read_page')], tools)).toBe(true);
    expect(readUntrusted([told('weather')], tools)).toBe(false);
  });
});

describe('needsApproval', () => {
  it.each([
    ['a tool with confirm', tool({ confirm: true }), false, true],
    ['a POST before anything untrusted', tool({ method: 'POST' }), false, false],
    ['a POST after', tool({ method: 'POST' }), true, true],
    ['a GET after', tool({}), true, false],
    ['a GET marked unsafe after', tool({ safe: false }), true, true],
    ['a POST marked safe after', tool({ method: 'POST', safe: true }), true, false],
    ['an MCP tool that acts, after', tool({ kind: 'mcp', method: 'POST' }), true, true],
    ['a code tool after', tool({ kind: 'python', method: '' }), true, true],
    [
      'a code tool marked safe after',
      tool({ kind: 'python', method: '', safe: true }),
      true,
      false,
    ],
    ["the engine's end of the call after", tool({ kind: 'end_session' }), true, false],
    ['a handoff after', tool({ kind: 'handoff', method: 'POST' }), true, false],
    ['no tool', undefined, true, false],
  ])('%s', (_, t, after, expected) => {
    expect(needsApproval(t, after)).toBe(expected);
  });
});
