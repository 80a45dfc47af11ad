import { startError } from './support/engine.js';
import { samples } from './support/prometheus.js';
import { sseCall, sseText } from './support/fake-llm.js';
import { refusedTools, writeToolsFile } from './support/tools-file.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';

/** A help desk's tools: the weather offered always, the rest deferred until a search finds them. */
const toolsAt = (base: string) => {
  const deferred = (name: string, description: string) => ({
    name,
    description,
    url: `${base}/${name}`,
    method: 'POST',
    deferred: true,
    parameters: { type: 'object', properties: { id: { type: 'string' } } },
  });
  return [
    { name: 'get_weather', url: `${base}/weather/{city}`, method: 'GET' },
    {
      type: 'tool_search',
      name: 'find_tools',
      description: 'Finds tools for billing, shipping and accounts.',
    },
    deferred('refund_invoice', 'Refunds an invoice, whole or in part.'),
    deferred('get_invoice', 'Reads an invoice by its number.'),
    deferred('track_shipment', 'Where a parcel is now and when it arrives.'),
    deferred('reset_password', "Sends a link to reset the user's password."),
    deferred('book_table', 'Books a table at the restaurant.'),
  ];
};

/**
 * `"deferred": true` and `"type": "tool_search"`: a large set's tools stay out of the requests
 * until the model has looked for them; those found are offered from the next request on.
 */
describe('tools the model finds when it needs them (tool_search, deferred)', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_CLOCK: 'off',
    LLM_TOOLS_FILE: writeToolsFile(toolsAt(base)),
    SESSION_RESUME_SECS: '60',
    ADMIN_API_KEY: 'admin-key',
  }));
  const client = useClientPerTest(rig);
  const toolNames = (i: number) => rig.llm.offered(i);
  const lastMessage = (i: number) => rig.llm.requests[i]!.body.messages.at(-1);

  it('offers the tools a search found from the next request on, in the turns after and when resumed', async () => {
    const { ws } = client;
    rig.llm.enqueue(
      sseCall('call_1', 'find_tools', { query: 'refund an invoice' }),
      sseCall('call_2', 'refund_invoice', { id: 'INV-7' }),
      sseText(['Invoice INV-7 is refunded.']),
    );
    const turn = await ws.turn('Please refund invoice INV-7.');
    expect(turn.filter((m) => m.type === 'tool_result').map((m) => [m.name, m.ok])).toEqual([
      ['find_tools', true],
      ['refund_invoice', true],
    ]);
    // The first request holds no deferred tool, nor its schema.
    expect(toolNames(0)).toEqual(['get_weather', 'find_tools']);
    expect(JSON.stringify(rig.llm.requests[0]!.body.tools)).not.toContain('invoice');
    expect(rig.llm.requests[0]!.body.tools[1].function.description).toBe(
      'Finds tools for billing, shipping and accounts.',
    );
    expect(lastMessage(1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content:
        'Found for "refund an invoice"; you can call these now:\n- refund_invoice: Refunds an invoice, whole or in part.\n- get_invoice: Reads an invoice by its number.',
    });
    expect(toolNames(1)).toEqual(['get_weather', 'find_tools', 'refund_invoice', 'get_invoice']);
    expect(rig.tools.requests.map((r) => [r.method, r.path])).toEqual([
      ['POST', '/refund_invoice'],
    ]);

    // The next turn: still offered. A deferred tool called before a search found it is not run
    // (its arguments were written without its schema), but found by the call: offered from the
    // next request on, no search round needed.
    rig.llm.enqueue(
      sseCall('call_3', 'track_shipment', { id: 'P-1' }),
      sseCall('call_4', 'track_shipment', { id: 'P-1' }),
      sseText(['It arrives tomorrow.']),
    );
    await ws.turn('And where is my parcel?');
    expect(toolNames(3)).toEqual(['get_weather', 'find_tools', 'refund_invoice', 'get_invoice']);
    expect(lastMessage(4)).toEqual({
      role: 'tool',
      tool_call_id: 'call_3',
      content:
        "Error: tool request failed: not run: 'track_shipment' was not in your list of tools yet (a search finds such tools); it is there from now on: call it again, with the arguments its parameters ask for",
    });
    expect(toolNames(4)).toEqual([...toolNames(3), 'track_shipment']);
    expect(rig.tools.requests.map((r) => r.path)).toEqual(['/refund_invoice', '/track_shipment']);

    // A session resumed on another connection keeps what its searches found.
    const token = ws.messages[0]!.resume_token as string;
    ws.close();
    await ws.closed;
    const again = await WsClient.connect(`${rig.engine.wsUrl}?resume=${token}`);
    try {
      rig.llm.enqueue(sseText(['Yes.']));
      await again.turn('Is the refund done?');
      expect(toolNames(6)).toEqual([...toolNames(4)]);
    } finally {
      again.close();
    }
  });

  it('reads a deferred tool written as bare JSON before a search found it as a call that finds it, never as words', async () => {
    rig.llm.enqueue(
      sseText(['{"name": "track_shipment", "arguments": {"id": "P-9"}}']),
      sseCall('call_2', 'track_shipment', { id: 'P-9' }),
      sseText(['It arrives tomorrow.']),
    );
    const turn = await client.ws.turn('Where is parcel P-9?');
    const spoken = turn.filter((m) => m.type === 'assistant_delta').map((m) => m.text);
    expect(spoken.join('')).toBe('It arrives tomorrow.');
    expect(lastMessage(1)).toMatchObject({
      role: 'tool',
      content: expect.stringMatching(
        /^Error: tool request failed: not run: 'track_shipment' was not in your list of tools yet/,
      ),
    });
    expect(toolNames(1)).toContain('track_shipment');
    expect(rig.tools.requests.map((r) => r.path)).toEqual(['/track_shipment']);
  });

  it('searches only the tools the session may use, and says when nothing matched', async () => {
    const admin = { headers: { Authorization: 'Bearer admin-key' } };
    const fruitless = async () =>
      samples(await (await fetch(`${rig.engine.httpUrl}/metrics`, admin)).text()).get(
        'agent_engine_tool_calls_total{tool="find_tools",ok="false"}',
      ) ?? 0;
    const before = await fruitless();
    const { ws } = client;
    ws.send({ type: 'session.update', tools: ['find_tools', 'get_invoice', 'reset_password'] });
    await ws.waitFor((m) => m.type === 'session.updated');
    rig.llm.enqueue(
      sseCall('call_1', 'find_tools', { query: 'refund invoice' }),
      sseCall('call_2', 'find_tools', { query: 'astronomy' }),
      sseCall('call_3', 'refund_invoice', { id: 'INV-1' }),
      sseText(['I can read invoices.']),
    );
    const turn = await ws.turn('Refund my invoice.');
    // A deferred tool the session may not use stays unknown, called or not.
    expect(lastMessage(3)).toMatchObject({ content: "Error: unknown tool 'refund_invoice'" });
    expect(toolNames(3)).toEqual(['find_tools', 'get_invoice']);
    // A search that found nothing did not succeed (counted so: descriptions lacking the words).
    expect(turn.filter((m) => m.type === 'tool_result').map((m) => m.ok)).toEqual([
      true,
      false,
      false,
    ]);
    expect(lastMessage(1)).toMatchObject({
      content:
        'Found for "refund invoice"; you can call these now:\n- get_invoice: Reads an invoice by its number.',
    });
    expect(toolNames(1)).toEqual(['find_tools', 'get_invoice']);
    expect(lastMessage(2)).toMatchObject({
      content: expect.stringMatching(/^No tool found for "astronomy"\. Search again/),
    });
    expect((await fruitless()) - before).toBe(1);
  });

  it('asks a model that says it cannot, with tools left to search, to search first', async () => {
    rig.llm.enqueue(
      sseText(["I'm sorry, I can't refund invoices."]),
      sseCall('call_1', 'find_tools', { query: 'refund invoice' }),
      sseCall('call_2', 'refund_invoice', { id: 'INV-9' }),
      sseText(['Invoice INV-9 is refunded.']),
    );
    await client.ws.turn('Refund invoice INV-9.');
    expect(lastMessage(1)).toEqual({
      role: 'user',
      content:
        '(A note from the engine, not from the user: you said "I\'m sorry, I can\'t refund invoices.", but you have not looked for a tool that can: only some tools are in your list. Call find_tools now with a few words of what the user asked; if it finds nothing that can, tell the user so. Do not say again what you already said.)',
    });
    expect(rig.tools.requests.map((r) => r.path)).toEqual(['/refund_invoice']);
    const admin = { headers: { Authorization: 'Bearer admin-key' } };
    const metrics = samples(await (await fetch(`${rig.engine.httpUrl}/metrics`, admin)).text());
    expect(metrics.get('agent_engine_tool_nudges_total{kind="refusal",outcome="called"}')).toBe(1);
  });

  it('is tried over POST /api/tools/{name}/call, searching every deferred tool', async () => {
    const res = await fetch(`${rig.engine.httpUrl}/api/tools/find_tools/call`, {
      method: 'POST',
      body: JSON.stringify({ arguments: { query: 'forgot my password' } }),
      headers: { 'content-type': 'application/json', authorization: 'Bearer admin-key' },
    });
    expect(await res.json()).toMatchObject({
      ok: true,
      result:
        'Found for "forgot my password"; you can call these now:\n- reset_password: Sends a link to reset the user\'s password.',
    });
  });

  it('refuses deferred tools without a search tool, naming the tool and the field', async () => {
    const tools = toolsAt('http://127.0.0.1:9').filter((t) => t.name !== 'find_tools');
    expect(await refusedTools(rig.engine.httpUrl, tools, 'admin-key')).toBe(
      'request body: tool #1 \'refund_invoice\': field \'deferred\': the set has no tool of type "tool_search" for the model to find it with: add one ({"type": "tool_search", "name": "find_tools"})',
    );
  });

  it('warns of a set offered whole that is larger than a request takes, and not of it deferred', async () => {
    const many = (deferred: boolean) =>
      Array.from({ length: 130 }, (_, i) => ({
        name: `op_${i}`,
        description: `Operation ${i} of the API.`,
        url: `http://127.0.0.1:9/${i}`,
        ...(deferred && { deferred: true }),
      }));
    const dryRun = async (tools: unknown[]) =>
      (await (
        await fetch(`${rig.engine.httpUrl}/api/tools?dry_run=true`, {
          method: 'POST',
          headers: { authorization: 'Bearer admin-key' },
          body: JSON.stringify(tools),
        })
      ).json()) as { dry_run: boolean; warnings?: string[] };
    expect((await dryRun(many(false))).warnings).toEqual([
      expect.stringMatching(
        /^request body: the set offers 130 tools in every request, \d+ KiB .*: OpenAI's API takes at most 128 in a request/,
      ),
    ]);
    const deferred = await dryRun([{ type: 'tool_search', name: 'find_tools' }, ...many(true)]);
    expect(deferred).toMatchObject({ dry_run: true });
    expect(deferred.warnings).toBeUndefined();
  });

  it('stops start-up on a search tool whose max_results is out of range', async () => {
    const file = writeToolsFile([{ type: 'tool_search', name: 'find_tools', max_results: 50 }]);
    expect(await startError({ LLM_MODEL: 'm', LLM_TOOLS_FILE: file })).toContain(
      "tool #0 'find_tools': field 'max_results' is invalid: expected an integer from 1 to 20",
    );
  });
});

/** `prefetch`: the engine offers the deferred tools matching the user's latest words itself. */
describe('deferred tools offered for what the user just said (prefetch)', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_CLOCK: 'off',
    LLM_TOOLS_FILE: writeToolsFile(
      toolsAt(base).map((t) => (t.name === 'find_tools' ? { ...t, prefetch: 2 } : t)),
    ),
  }));
  const client = useClientPerTest(rig);

  it('lets the model call one at once, and keeps offering it while a call of it that ran is in the history', async () => {
    const { ws } = client;
    rig.llm.enqueue(
      sseCall('call_1', 'book_table', { id: 'T-4' }),
      sseText(['Your table is booked.']),
    );
    await ws.turn('Please book a table for four at 8 pm.');
    expect(rig.llm.offered(0)).toEqual(['get_weather', 'find_tools', 'book_table']);
    expect(rig.tools.requests.map((r) => r.path)).toEqual(['/book_table']);
    for (const words of ['Thanks.', 'Is it sunny?', 'Good night.']) {
      rig.llm.enqueue(sseText(['Sure.']));
      await ws.turn(words);
    }
    // The user's last three messages match nothing; the booking made keeps its tool offered.
    expect(rig.llm.offered(-1)).toEqual(['get_weather', 'find_tools', 'book_table']);
  });

  it("matches the user's words, not the application's notes", async () => {
    const { ws } = client;
    ws.send({ type: 'note', text: 'A refund of invoice INV-7 is due; the parcel shipped.' });
    rig.llm.enqueue(sseText(['Hello!']));
    await ws.turn('Hello.');
    expect(rig.llm.requests[0]!.body.messages.at(-1).content).toMatch(
      /A refund of invoice INV-7 is due; the parcel shipped\.\n\nHello\.$/,
    );
    expect(rig.llm.offered(0)).toEqual(['get_weather', 'find_tools']);
  });
});
