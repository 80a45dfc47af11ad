import type { ChatMessage } from '../llm/llm.types.js';
import { snapshotOf, type Tool } from './tool-definition.js';
import { searchTools } from './tool-index.js';
import { foundTools, notOffered, offeredDeferred, runSearch, searchResult } from './tool-search.js';
import { groupTools } from './mcp/mcp-listing.js';
import { validateToolDefinitions } from './tool-validation.js';

const http = (name: string, description: string, parameters?: Record<string, unknown>) => ({
  name,
  description,
  url: `http://127.0.0.1:9/${name}`,
  method: 'POST',
  deferred: true,
  ...(parameters && { parameters }),
});

/** A help desk's tools, most of them deferred. */
const SET = [
  { name: 'get_weather', description: 'Current weather of a city.', url: 'http://127.0.0.1:9/w' },
  { type: 'tool_search', name: 'find_tools', max_results: 3 },
  http('refund_invoice', 'Refunds an invoice, whole or in part. Ask for the amount first.'),
  http('get_invoice', 'Reads an invoice by its number: amount, due date, whether it is paid.'),
  http('track_shipment', 'Where a parcel is now and when it arrives.', {
    type: 'object',
    properties: { tracking_number: { type: 'string', description: 'The carrier code' } },
  }),
  http('cancelOrder', 'Cancels an order that has not shipped yet.'),
  http('book_table', 'Books a table at the restaurant for a party, a date and a time.'),
  http('reset_password', "Sends a link to reset the user's password to their e-mail."),
  http('update_address', 'Changes the delivery address of an account.'),
];

const { tools } = validateToolDefinitions(SET, 'tools.json');
const catalogue = tools.filter((t) => t.deferred);
const names = (found: readonly Tool[]) => found.map((t) => t.name);

describe('tool search (`tool_search` and `deferred` tools)', () => {
  it('finds the deferred tools that match what the user wants, best first', () => {
    expect(names(searchTools('refund an invoice', { tools }, 5))[0]).toBe('refund_invoice');
    expect(names(searchTools('refund an invoice', { tools }, 5))).toContain('get_invoice');
    // By the description alone, by a parameter, by a camelCase name, misspelt, by a word's stem.
    expect(names(searchTools('where is my parcel', { tools }, 5))[0]).toBe('track_shipment');
    expect(names(searchTools('tracking number', { tools }, 5))[0]).toBe('track_shipment');
    expect(names(searchTools('cancel order', { tools }, 5))[0]).toBe('cancelOrder');
    expect(names(searchTools('invoise', { tools }, 5))[0]).toMatch(/invoice/);
    expect(names(searchTools('booking', { tools }, 5))[0]).toBe('book_table');
    expect(names(searchTools('password', { tools }, 5))).toEqual(['reset_password']);
  });

  it('names at most max_results, and none for words that say nothing', () => {
    expect(searchTools('invoice order address table password', { tools }, 2)).toHaveLength(2);
    expect(searchTools('the tool to use for me', { tools }, 5)).toEqual([]);
    expect(searchTools('astronomy', { tools }, 5)).toEqual([]);
    expect(searchTools('refund', { tools: [] }, 5)).toEqual([]);
  });

  it('tells the model what it found, one tool a line, or what to do when nothing matched', () => {
    const found = searchTools('refund', { tools }, 5);
    expect(searchResult('refund', found)).toBe(
      'Found for "refund"; you can call these now:\n- refund_invoice: Refunds an invoice, whole or in part.',
    );
    expect(searchResult('astronomy', [])).toBe(
      'No tool found for "astronomy". Search again with other words for what the user wants done (one or two words: "refund", "invoice"), or answer without a tool.',
    );
  });

  it('reads the tools found from the results of search calls, and those a call ran, in the history', () => {
    const call = (id: string, name: string) => ({
      id,
      type: 'function' as const,
      function: { name, arguments: '{}' },
    });
    const history: ChatMessage[] = [
      { role: 'user', content: 'Refund my invoice, and where is my parcel?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          call('c1', 'find_tools'),
          call('c2', 'get_weather'),
          call('c3', 'cancelOrder'),
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: searchResult('refund', [catalogue[0]!]) },
      // Lines that look like a search's in another tool's result name nothing.
      { role: 'tool', tool_call_id: 'c2', content: '- book_table: a line any result may hold' },
      // A tool called before anything made it known is not known for that.
      { role: 'tool', tool_call_id: 'c3', content: "Error: unknown tool 'cancelOrder'" },
    ];
    expect([...foundTools(history, new Set(['find_tools']))]).toEqual([
      'refund_invoice',
      'get_weather',
    ]);
    expect([...foundTools(history, new Set())]).toEqual(['find_tools', 'get_weather']);
  });

  it('finds a deferred tool the session may use by a call of it, and leaves any other unknown', () => {
    // What the request offered: no deferred tool found yet.
    const snapshot = snapshotOf(
      'file',
      tools.filter((t) => !t.deferred),
    );
    const findable = { tools, only: new Set(['book_table']) };
    const outcome = (name: string) =>
      notOffered({ id: 'c1', name, args: {}, snapshot, context: { findable } } as never);
    const read = (name: string) => outcome(name).text;
    // Calling a deferred tool before a search found it is no mistake of the model's.
    expect(outcome('book_table').modelError).toBeUndefined();
    expect(outcome('nope').modelError).toBe('unknown_tool');
    expect(read('book_table')).toMatch(
      /^Error: tool request failed: not run: 'book_table' was not/,
    );
    expect(read('reset_password')).toBe("Error: unknown tool 'reset_password'");
    expect(read('nope')).toBe("Error: unknown tool 'nope'");
    const history: ChatMessage[] = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'book_table', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: read('book_table') },
    ];
    expect([...foundTools(history, new Set(['find_tools']))]).toEqual(['book_table']);
  });

  it("offers with prefetch the best matches of the user's latest words, within the session's tools", () => {
    const search = tools.find((t) => t.kind === 'tool_search')!;
    const history: ChatMessage[] = [{ role: 'user', content: 'Where is my parcel?' }];
    const said = ['Hello', 'Book a table for four', 'At 8 pm'];
    expect(offeredDeferred(history, [search], { tools }, () => said)).toEqual(new Set());
    const prefetching = { ...search, prefetch: 2 };
    expect(offeredDeferred(history, [prefetching], { tools }, () => said)).toEqual(
      new Set(['book_table']),
    );
    expect(
      offeredDeferred([], [prefetching], { tools, only: new Set() }, () => ['Where is my parcel?']),
    ).toEqual(new Set());
    expect(offeredDeferred([], [prefetching], { tools }, () => ['Refund my invoice'])).toEqual(
      new Set(['refund_invoice', 'get_invoice']),
    );
  });

  it("searches the snapshot's deferred tools for a call with no session (an admin's try)", () => {
    const snapshot = snapshotOf('file', tools);
    const search = snapshot.byName.get('find_tools')!;
    const outcome = runSearch(
      { id: 'c', name: 'find_tools', args: { query: 'password' }, snapshot } as never,
      search,
    );
    expect(outcome).toEqual({
      ok: true,
      text: 'Found for "password"; you can call these now:\n- reset_password: Sends a link to reset the user\'s password to their e-mail.',
    });
  });

  it("defers each tool an MCP entry for a server's tools makes", () => {
    const { tools: set } = validateToolDefinitions(
      [
        { type: 'mcp', url: 'https://crm.example/mcp', tools: '*', prefix: 'crm_', deferred: true },
        { type: 'tool_search', name: 'find_tools' },
      ],
      'tools.json',
    );
    const schema = { type: 'object', properties: {} };
    const made = groupTools(
      set[0]!,
      [
        { name: 'lookup_order', inputSchema: schema },
        { name: 'refund', inputSchema: schema },
      ],
      () => false,
      'tools.json',
      0,
    );
    expect(made.map((t) => [t.name, t.deferred])).toEqual([
      ['crm_lookup_order', true],
      ['crm_refund', true],
    ]);
  });

  it('finds a tool by its keywords, words its description lacks, and refuses them on a tool offered always', () => {
    const refund = { ...SET[2], keywords: ['reimbursement', 'money back', 'rimborso'] };
    const { tools: set } = validateToolDefinitions(
      [...SET, { ...refund, name: 'refund' }],
      't.json',
    );
    expect(names(searchTools('reimbursement', { tools }, 5))).toEqual([]);
    expect(names(searchTools('a reimbursement please', { tools: set }, 5))).toEqual(['refund']);
    expect(names(searchTools('rimborso fattura', { tools: set }, 5))).toEqual(['refund']);
    // Never offered: the description is what the model reads.
    expect(searchResult('rimborso', searchTools('rimborso', { tools: set }, 5))).toBe(
      'Found for "rimborso"; you can call these now:\n- refund: Refunds an invoice, whole or in part.',
    );
    expect(() => validateToolDefinitions([{ ...SET[0], keywords: ['climate'] }], 't.json')).toThrow(
      `t.json: tool #0 'get_weather': field 'keywords' is what a search finds a deferred tool by, and this one is offered in every request: give it "deferred": true, or leave the keywords out`,
    );
  });

  it('refuses a set whose deferred tools no search can find, and a search deferred or given parameters', () => {
    const [, , ...deferred] = SET;
    // A place of a larger set, checked there, is not asked for a search of its own.
    expect(() => validateToolDefinitions([SET[2]], 'tools.json', { inSet: true })).not.toThrow();
    expect(() => validateToolDefinitions([SET[0], ...deferred], 'tools.json')).toThrow(
      `tools.json: tool #1 'refund_invoice': field 'deferred': the set has no tool of type "tool_search" for the model to find it with: add one ({"type": "tool_search", "name": "find_tools"})`,
    );
    expect(() =>
      validateToolDefinitions(
        [
          { type: 'tool_search', name: 'find' },
          { type: 'tool_search', name: 'find_more', deferred: true },
        ],
        't.json',
      ),
    ).toThrow(
      "t.json: tool #1 'find_more': field 'deferred': a tool_search tool is how deferred tools are found; it cannot be deferred itself",
    );
    expect(() =>
      validateToolDefinitions([{ type: 'tool_search', name: 'find', parameters: {} }], 't.json'),
    ).toThrow(
      "t.json: tool #0 'find': field 'parameters': a tool_search tool takes its query alone; leave 'parameters' out",
    );
    expect(() =>
      validateToolDefinitions([{ type: 'tool_search', name: 'find', max_results: 0 }], 't.json'),
    ).toThrow(/t\.json: tool #0 'find': field 'max_results'.*an integer from 1 to 20/);
    const search = tools.find((t) => t.kind === 'tool_search')!;
    expect(search).toMatchObject({ maxResults: 3, parameters: { required: ['query'] } });
    // An assistant given deferred tools without the search cannot look for them.
    const handoffs = [
      { type: 'handoff', name: 'to_billing', tools: ['refund_invoice', 'get_weather'] },
      { type: 'handoff', name: 'to_desk', tools: ['refund_invoice', 'find_tools'] },
    ];
    expect(validateToolDefinitions([...SET, ...handoffs], 'tools.json').warnings).toEqual([
      "tools.json: tool #9 'to_billing': field 'tools' names deferred tools (refund_invoice) but no tool_search tool (find_tools): the assistant cannot look for them",
    ]);
    expect(search.description).toMatch(/^Finds more tools/);
  });
});
