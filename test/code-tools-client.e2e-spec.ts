import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import type { Msg } from './support/ws-client.js';

/** A code tool calls one of the session's own tools (`tools.<name>`): the client runs it. */
describe('code tools calling the client’s tools', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    CODE_TOOLS_WORKERS: '1',
    LLM_TOOLS_FILE: writeToolsFile([
      weatherTool(base),
      {
        type: 'python',
        code: 'def weather_here() -> str:\n    """The weather where the caller is."""\n    return "Here: " + str(tools.get_weather({"city": "Oslo"})) + " / " + str(tools.nowhere({}))',
        timeout_secs: 10,
      },
      {
        type: 'python',
        code: 'def greet_where() -> str:\n    """Greets the caller where they are."""\n    place = tools.get_location({"precise": False})\n    if isinstance(place, str):\n        return "No location: " + place\n    again = tools.get_location({"precise": True})\n    return "Hello from " + place["city"] + " and " + again["city"]',
        timeout_secs: 10,
      },
    ]),
  }));
  const client = useClientPerTest(rig);

  /** A turn whose model calls greet_where; the client answers its client_tool_call with `reply`. */
  async function turn(reply: (call: Msg) => Record<string, unknown>) {
    const ws = client.ws;
    let from = ws.messages.length;
    ws.send({
      type: 'session.update',
      client_tools: [
        {
          name: 'get_location',
          parameters: { type: 'object', properties: { precise: { type: 'boolean' } } },
        },
      ],
    });
    await ws.waitFor((m) => m.type === 'session.updated', from);
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'greet_where', arguments: {} }]),
      sseText(['ok']),
    );
    from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'where am I?' });
    const asked = await ws.waitFor((m) => m.type === 'client_tool_call', from);
    ws.send({ type: 'client_tool_result', id: asked.id, ...reply(asked) });
    const end = await ws.waitFor(
      (m) => m.type === 'assistant_end' || (m.type === 'client_tool_call' && m.id !== asked.id),
      from,
    );
    if (end.type === 'client_tool_call') {
      ws.send({ type: 'client_tool_result', id: end.id, ...reply(end) });
      await ws.waitFor((m) => m.type === 'assistant_end', from);
    }
    const read = rig.llm.requests[1]!.body.messages.findLast((m: any) => m.role === 'tool').content;
    return { asked, read, events: ws.messages.slice(from) };
  }

  it('hands the call to the client and gives the code its result', async () => {
    const { asked, read, events } = await turn(() => ({ result: { city: 'Rome' } }));
    expect(asked).toEqual({
      type: 'client_tool_call',
      id: 'call_1:get_location',
      name: 'get_location',
      arguments: { precise: false },
    });
    expect(read).toBe('"Hello from Rome and Rome"');
    // Each call the code makes has its own id.
    expect(events.filter((m) => m.type === 'client_tool_call').map((m) => m.id)).toEqual([
      'call_1:get_location',
      'call_1:get_location:2',
    ]);
    // The model made one call: the client's tool ran inside it, announced by client_tool_call alone.
    expect(events.filter((m) => m.type === 'tool_call').map((m) => m.name)).toEqual([
      'greet_where',
    ]);
  }, 30_000);

  it('gives the code the client’s error text', async () => {
    const { read } = await turn(() => ({ error: 'location is off' }));
    expect(read).toBe('"No location: Error: location is off"');
  }, 30_000);

  it("still reaches the engine's own tools from a session that has tools of its own, and no other", async () => {
    const ws = client.ws;
    let from = ws.messages.length;
    ws.send({ type: 'session.update', client_tools: [{ name: 'get_location' }] });
    await ws.waitFor((m) => m.type === 'session.updated', from);
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_w', name: 'weather_here', arguments: {} }]),
      sseText(['ok']),
    );
    from = ws.messages.length;
    await ws.turn('weather?');
    expect(rig.tools.requests.at(-1)!.path).toBe('/Oslo');
    const read = rig.llm.requests
      .at(-1)!
      .body.messages.findLast((m: any) => m.role === 'tool').content;
    expect(read).toBe(`"Here: ok / Error: unknown tool 'nowhere'"`);
    expect(ws.messages.slice(from).some((m) => m.type === 'client_tool_call')).toBe(false);
  }, 30_000);
});
