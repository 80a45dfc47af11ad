import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

/** A turn's requests, to the LLM server and to tools, carry one W3C trace id (TRACE_CONTEXT). */
describe.each([
  ['on', {}],
  ['off', { TRACE_CONTEXT: 'false' }],
])('trace context %s', (state, env) => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    ...env,
    LLM_TOOLS_FILE: writeToolsFile([
      weatherTool(base),
      { name: 'traced', url: `${base}/traced`, method: 'GET', headers: { traceparent: 'mine' } },
    ]),
  }));
  const client = useClientPerTest(rig);

  /** One turn calling `name`; the traceparent headers of its LLM and tool requests. */
  async function turn(name: string, args: Record<string, unknown> = {}) {
    const from = rig.llm.requests.length;
    const tools = rig.tools.requests.length;
    rig.llm.enqueue(sseStructuredCalls([{ id: 'c1', name, arguments: args }]), sseText(['ok']));
    await client.ws.turn('go', 10_000);
    return {
      llm: rig.llm.requests.slice(from).map((r) => r.headers.traceparent),
      tool: rig.tools.requests.slice(tools).map((r) => r.headers.traceparent),
    };
  }

  it(
    state === 'on'
      ? 'gives every request of a turn the turn’s trace id, each its own span, and the next turn another'
      : 'sends no traceparent',
    async () => {
      const first = await turn('get_weather', { city: 'Rome' });
      if (state === 'off') {
        expect([...first.llm, ...first.tool]).toEqual([undefined, undefined, undefined]);
        return;
      }
      const all = [...first.llm, ...first.tool].map((h) => TRACEPARENT.exec(String(h)));
      expect(all.every(Boolean)).toBe(true);
      expect(new Set(all.map((m) => m![1])).size).toBe(1);
      expect(new Set(all.map((m) => m![2])).size).toBe(3);
      const second = await turn('get_weather', { city: 'Oslo' });
      expect(TRACEPARENT.exec(String(second.llm[0]))![1]).not.toBe(all[0]![1]);
    },
  );

  it('leaves a traceparent the tool sets itself', async () => {
    expect((await turn('traced')).tool).toEqual(['mine']);
  });
});
