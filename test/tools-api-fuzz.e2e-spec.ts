import fc from 'fast-check';
import { chaosOptions, FAULT_WORDS } from './support/chaos-checks.js';
import { Engine } from './support/engine.js';
import { definition } from './support/tool-definition-arbitrary.js';
import { postTools } from './support/tools-file.js';

/**
 * Random tool sets over `POST /api/tools` (an admin tool that writes them, an OpenAPI client):
 * whatever they hold (but MCP and OpenAPI entries, whose servers and documents would be read), the answer is the set taken
 * (200) or refused naming the place and field (400), never a failure of the engine, and the
 * tools offered are then those of the last set taken.
 */
describe('POST /api/tools with random sets', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({ LLM_BASE_URL: 'http://127.0.0.1:1/v1', CODE_TOOLS_WORKERS: '1' });
  }, 60_000);
  afterAll(() => engine?.stop());

  it('are taken or refused with the place and field, never failed', async () => {
    const local = definition.filter((d) => d.type !== 'mcp' && d.type !== 'openapi');
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fc.array(local, { minLength: 1, maxLength: 3 }), async (definitions) => {
        const before = await (await fetch(`${engine.httpUrl}/api/tools`)).json();
        const reply = await postTools(engine.httpUrl, definitions);
        statuses.add(reply.status);
        const body = (await reply.json()) as Record<string, any>;
        expect([200, 400]).toContain(reply.status);
        const after = (await (await fetch(`${engine.httpUrl}/api/tools`)).json()) as Record<
          string,
          any
        >;
        if (reply.status === 400) {
          expect(body.message).toMatch(/^request body: (tool #\d|duplicate|the array)/);
          expect(body.message).not.toMatch(FAULT_WORDS);
          // A refused set changes nothing.
          expect(after).toEqual(before);
        } else expect(after.tools).toHaveLength(body.tools.length);
      }),
      chaosOptions(Number(process.env.CHAOS_RUNS ?? 40)),
    );
    expect([...statuses].sort()).toEqual([200, 400]);
  }, 120_000);
});
