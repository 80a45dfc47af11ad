import { resolve } from 'node:path';
import fc from 'fast-check';
import { chaosOptions, FAULT_WORDS } from './support/chaos-checks.js';
import { useLoopback } from './support/calls-answered.js';
import { Engine } from './support/engine.js';
import { RawMcpServer, type Answer } from './support/raw-mcp-server.js';
import { postTools } from './support/tools-file.js';

const SHOP = resolve('test/fixtures/openapi/shop.yaml');

const anything = fc.jsonValue({ maxDepth: 2 });
/** Mostly what the field should hold, sometimes any JSON. */
const mostly = <T>(right: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 20, arbitrary: right }, anything as fc.Arbitrary<unknown>);

/** A tool as a server lists it: its fields right, wrong or missing. */
const tool = fc.record(
  {
    name: mostly(
      fc.constantFrom('lookup', 'orders.cancel', 'get weather', 'x'.repeat(70), '', 'lookup'),
    ),
    title: mostly(fc.string({ maxLength: 12 })),
    description: mostly(fc.string({ maxLength: 40 })),
    inputSchema: mostly(
      fc.oneof(
        fc.constant({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }),
        fc.constant({ type: 'object' }),
        fc.constant({ type: 'object', properties: { n: { type: 'integer', minimum: 'none' } } }),
        fc.constant({ type: 'array' }),
        fc.dictionary(fc.string({ maxLength: 6 }), anything, { maxKeys: 3 }),
      ),
    ),
    outputSchema: mostly(fc.constant({ type: 'object' })),
    annotations: mostly(
      fc.record(
        {
          readOnlyHint: mostly(fc.boolean()),
          destructiveHint: mostly(fc.boolean()),
          openWorldHint: mostly(fc.boolean()),
        },
        {
          requiredKeys: [],
        },
      ),
    ),
    execution: mostly(
      fc.record({ taskSupport: mostly(fc.constantFrom('required', 'optional', 'forbidden')) }),
    ),
  },
  { requiredKeys: ['name', 'inputSchema'] },
);

/** A `tools/list` answer: a list of such tools, a result of another shape, or no JSON-RPC. */
const listing: fc.Arbitrary<Answer> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .oneof(
        { weight: 5, arbitrary: fc.array(tool, { maxLength: 4 }).map((tools) => ({ tools })) },
        fc.record({ tools: anything, nextCursor: anything }, { requiredKeys: [] }),
        anything,
      )
      .map((result) => ({
        status: 200,
        type: 'application/json',
        body: (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result }),
      })),
  },
  fc
    .tuple(
      fc.constantFrom(200, 404, 500),
      fc.constantFrom('application/json', 'text/html'),
      fc.string(),
    )
    .map(([status, type, body]) => ({ status, type, body: () => body })),
);

/** An entry for the server's tools: all of them, or one named. */
const entry = fc.constantFrom<Record<string, unknown>>(
  { tools: '*' },
  { tools: '*', prefix: 'crm_' },
  { name: 'lookup' },
  { name: 'crm_cancel', tool: 'orders.cancel' },
);

/** A hand-written MCP server on loopback, and an engine to post tool sets naming it to. */
function useListingRig() {
  const mcp = new RawMcpServer();
  const base = useLoopback(mcp.server);
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({ LLM_BASE_URL: 'http://127.0.0.1:1/v1', LLM_MODEL: 'm' });
  }, 60_000);
  afterAll(() => engine?.stop());
  return { mcp, base, engine: () => engine };
}

/**
 * Random `tools/list` answers of an MCP server an entry of `POST /api/tools` names: whatever the
 * server lists (names, schemas, annotations right or wrong; no list at all), the set is taken with
 * tools the model can be offered, or refused naming the entry and field: never a failure of the
 * engine, and a refused set changes nothing.
 */
describe("random listings of an MCP server's tools", () => {
  const { mcp, base, engine } = useListingRig();

  it('are taken as tools the model can be offered, or refused naming the entry', async () => {
    const statuses = new Set<number>();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(listing, entry, async (answer, which) => {
        // A server of its own each run, which keeps its list: the engine reads a server's list
        // again after its session broke (a restarted server may list other tools), and an
        // earlier run's server must not list this run's tools then.
        const path = `/mcp?run=${run++}`;
        mcp.listings.set(path, answer);
        const before = await (await fetch(`${engine().httpUrl}/api/tools`)).json();
        const reply = await postTools(engine().httpUrl, [
          { type: 'mcp', url: `${base()}${path}`, ...which },
        ]);
        statuses.add(reply.status);
        const body = (await reply.json()) as { message?: string; tools?: { name: string }[] };
        if (![200, 400].includes(reply.status))
          throw new Error(`${reply.status} ${JSON.stringify(body)} for ${answer.body(1)}`);
        const after = (await (await fetch(`${engine().httpUrl}/api/tools`)).json()) as {
          tools: { name: string }[];
        };
        if (reply.status === 400) {
          expect(body.message).toMatch(/^request body: (tool #0|the array)/);
          expect(body.message).not.toMatch(FAULT_WORDS);
          expect(after).toEqual(before);
          return;
        }
        for (const { name } of after.tools) {
          expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
          const offered = await fetch(`${engine().httpUrl}/api/tools/${name}/offered`);
          expect(offered.status).toBe(200);
          expect(await offered.json()).toMatchObject({
            name,
            description: expect.any(String),
            parameters: expect.objectContaining({ type: 'object' }),
          });
        }
      }),
      chaosOptions(Number(process.env.CHAOS_RUNS ?? 40)),
    );
    expect([...statuses].sort()).toEqual([200, 400]);
  }, 120_000);
});

describe('an MCP server that lists one tool as MCP does not allow', () => {
  const { mcp, base, engine } = useListingRig();
  beforeAll(() => {
    const tools = [
      { name: 'find_order', description: 'Finds an order', inputSchema: { type: 'object' } },
      // Python servers have been seen writing null for a description left out.
      { name: 'cancel_order', description: null, inputSchema: { type: 'object' } },
    ];
    mcp.listing = {
      status: 200,
      type: 'application/json',
      body: (id) => JSON.stringify({ jsonrpc: '2.0', id, result: { tools } }),
    };
  });

  it("keeps the server's other tools, saying which it left out and why", async () => {
    const all = await postTools(engine().httpUrl, [
      { type: 'mcp', url: `${base()}/mcp`, tools: '*' },
    ]);
    expect(all.status).toBe(200);
    const set = (await all.json()) as { tools: { name: string }[]; warnings?: string[] };
    expect(set.tools.map((t) => t.name)).toEqual(['find_order']);
    expect(set.warnings).toEqual([
      "request body: tool #0: the MCP server lists a tool as MCP does not allow, left out: 'cancel_order': description: Invalid input: expected string, received null",
    ]);
    // After an entry that makes several tools: the warning names the MCP entry's own place.
    const after = await postTools(engine().httpUrl, [
      { type: 'openapi', spec: SHOP, operations: '*', base_url: 'http://127.0.0.1:9/api' },
      { type: 'mcp', url: `${base()}/mcp`, tools: '*' },
    ]);
    expect(after.status).toBe(200);
    expect(((await after.json()) as { warnings?: string[] }).warnings).toContain(
      "request body: tool #1: the MCP server lists a tool as MCP does not allow, left out: 'cancel_order': description: Invalid input: expected string, received null",
    );
    const named = await postTools(engine().httpUrl, [
      { type: 'mcp', url: `${base()}/mcp`, name: 'cancel_order' },
    ]);
    expect(named.status).toBe(400);
    expect(((await named.json()) as { message: string }).message).toBe(
      "request body: tool #0 'cancel_order': field 'name': the MCP server lists 'cancel_order' as MCP does not allow: description: Invalid input: expected string, received null",
    );
  });
});
