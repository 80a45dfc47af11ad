import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import type { Msg } from './support/ws-client.js';

/** A code tool calls one of the session's own tools (`tools.<name>`): the client runs it. */
describe('code tools calling the client’s tools', () => {
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    CODE_TOOLS_WORKERS: '1',
    LLM_TOOLS_FILE: writeToolsFile([
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
});
