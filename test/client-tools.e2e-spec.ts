import {
  sseRawArgumentsCall,
  sseStructuredCalls,
  sseText,
  type Script,
} from './support/fake-llm.js';
import { useTurnHarness, pieces, types, xmlCall } from './support/turn-harness.js';
import { WsClient, type Msg } from './support/ws-client.js';

/** Tools the client runs itself: `session.update`'s `client_tools`, `client_tool_call` / `client_tool_result`. */
describe('client tools on /ws', () => {
  const h = useTurnHarness();

  const openMap = {
    name: 'open_map',
    description: 'Shows a city on the map in the app',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, zoom: { type: 'integer' } },
      required: ['city'],
    },
  };

  /** Declares `tools` on the harness's connection; resolves with the `session.updated` event. */
  async function declare(tools: unknown[] | null, ws: WsClient = h.ws): Promise<Msg> {
    const from = ws.messages.length;
    ws.send({ type: 'session.update', client_tools: tools });
    return ws.waitFor((m) => m.type === 'session.updated' || m.type === 'error', from);
  }

  const toolMessage = (request: number, id: string) =>
    h.llm.requests[request]!.body.messages.find((m: any) => m.tool_call_id === id)?.content;

  /** Sends a turn and answers each `client_tool_call` with `reply(call)`; returns the turn's messages. */
  async function turnAnswering(text: string, reply: (call: Msg) => Record<string, unknown>) {
    const from = h.ws.messages.length;
    const answered = new Set<string>();
    const answer = () => {
      for (const m of h.ws.messages.slice(from))
        if (m.type === 'client_tool_call' && !answered.has(m.id)) {
          answered.add(m.id);
          h.ws.send({ type: 'client_tool_result', id: m.id, ...reply(m) });
        }
    };
    const timer = setInterval(answer, 5);
    h.ws.send({ type: 'user_text', text });
    try {
      await h.ws.waitFor((m) => m.type === 'assistant_end', from);
    } finally {
      clearInterval(timer);
    }
    return h.ws.messages.slice(from);
  }

  it('offers declared tools to the model with the engine’s, and runs a call through the client', async () => {
    const updated = await declare([openMap, { name: 'vibrate' }]);
    expect(updated.settings.client_tools).toEqual([
      openMap,
      { name: 'vibrate', description: '', parameters: { type: 'object', properties: {} } },
    ]);
    h.llm.enqueue(
      sseStructuredCalls([{ id: 'call_map', name: 'open_map', arguments: { city: 'Paris' } }]),
      sseText(['It is on your screen.']),
    );
    const from = h.ws.messages.length;
    h.ws.send({ type: 'user_text', text: 'show me Paris' });
    const asked = await h.ws.waitFor((m) => m.type === 'client_tool_call', from);
    expect(asked).toEqual({
      type: 'client_tool_call',
      id: 'call_map',
      name: 'open_map',
      arguments: { city: 'Paris' },
    });
    h.ws.send({ type: 'client_tool_result', id: 'call_map', result: { shown: 'Paris', zoom: 11 } });
    const end = await h.ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(end.text).toBe('It is on your screen.');
    const turn = h.ws.messages.slice(from);
    expect(types(turn)).toEqual([
      'tool_call',
      'client_tool_call',
      'tool_result',
      'assistant_delta',
      'assistant_end',
    ]);
    expect(turn[2]).toMatchObject({ id: 'call_map', name: 'open_map', ok: true });
    // The model is offered both kinds of tools, in the OpenAI shape; it reads the client's result.
    const offered = h.llm.requests[0]!.body.tools.map((t: any) => t.function);
    expect(offered.map((f: any) => f.name)).toEqual(
      expect.arrayContaining(['get_weather', 'open_map', 'vibrate']),
    );
    expect(offered.find((f: any) => f.name === 'open_map')).toEqual(openMap);
    expect(toolMessage(1, 'call_map')).toBe('{"shown":"Paris","zoom":11}');
    expect(h.tools.requests).toHaveLength(0); // nothing went to an HTTP tool
    // The client names its tools: in the metrics they share one label.
    const metrics = await (await fetch(`${h.engine.httpUrl}/metrics`)).text();
    expect(metrics).toContain('agent_engine_tool_calls_total{tool="(client)",ok="true"} 1');
    expect(metrics).not.toContain('open_map');
  });

  it('takes a result sent while the model is still writing, and types XML values by the client’s schema', async () => {
    await declare([openMap]);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The first call is complete once the second begins; the end of the output waits for the gate.
    const script = sseText(
      pieces(
        `Opening it. ${xmlCall('open_map', { city: 'Rome', zoom: '12' })}\n${xmlCall('get_weather', { city: 'Rome' })}`,
      ),
    );
    h.llm.enqueue({ ...script, gate } as Script, sseText(['Done.']));
    const from = h.ws.messages.length;
    h.ws.send({ type: 'user_text', text: 'map of Rome, close up' });
    const asked = await h.ws.waitFor((m) => m.type === 'client_tool_call', from);
    expect(asked.arguments).toEqual({ city: 'Rome', zoom: 12 });
    h.ws.send({ type: 'client_tool_result', id: asked.id, result: 'shown' });
    await new Promise((r) => setTimeout(r, 50));
    // The round is not over yet: the second call is still being written.
    expect(h.llm.requests).toHaveLength(1);
    expect(h.ws.messages.slice(from).filter((m) => m.type === 'tool_call')).toHaveLength(1);
    release();
    const end = await h.ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(end.text).toBe('Opening it. Done.'); // the layout between the calls is not shown
    expect(toolMessage(1, asked.id)).toBe('shown');
    expect(h.tools.requests.map((r) => r.path)).toEqual(['/Rome']);
  });

  it('hands the model the client’s error, runs engine and client calls of one round side by side', async () => {
    await declare([openMap]);
    h.llm.enqueue(
      sseStructuredCalls([
        { id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } },
        { id: 'call_m', name: 'open_map', arguments: { city: 'Oslo' } },
      ]),
      sseText(['Weather is fine, the map failed.']),
    );
    const turn = await turnAnswering('weather and map of Oslo', () => ({
      error: 'the map view is closed',
    }));
    const results = turn.filter((m) => m.type === 'tool_result');
    expect(results.map((m) => [m.id, m.ok])).toEqual(
      expect.arrayContaining([
        ['call_w', true],
        ['call_m', false],
      ]),
    );
    const tools = h.llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    expect(tools).toEqual([
      { role: 'tool', tool_call_id: 'call_w', content: 'Oslo: ☀️ +21°C' },
      { role: 'tool', tool_call_id: 'call_m', content: 'Error: the map view is closed' },
    ]);
  });

  it('does not hand the client a call whose arguments do not fit, and cuts long results', async () => {
    await declare([openMap]);
    h.llm.enqueue(
      sseStructuredCalls([
        { id: 'call_bad', name: 'open_map', arguments: { zoom: 3 } },
        { id: 'call_big', name: 'open_map', arguments: { city: 'Lima' } },
      ]),
      sseText(['Sorry.']),
    );
    const turn = await turnAnswering('map', () => ({ result: 'x'.repeat(300) }));
    expect(turn.filter((m) => m.type === 'client_tool_call').map((m) => m.id)).toEqual([
      'call_big',
    ]);
    expect(toolMessage(1, 'call_bad')).toBe(
      "Error: tool request failed: invalid arguments: arguments must have required property 'city'",
    );
    // LLM_TOOL_RESULT_MAX_CHARS is 100 in this harness.
    expect(toolMessage(1, 'call_big')).toBe(`${'x'.repeat(100)}… [truncated]`);
  });

  it('does not hand the client a call whose arguments are not JSON at all', async () => {
    await declare([openMap]);
    h.llm.enqueue(sseRawArgumentsCall('open_map', 'city=Lima'), sseText(['Sorry.']));
    const turn = await turnAnswering('map', () => ({ result: 'shown' }));
    expect(turn.some((m) => m.type === 'client_tool_call')).toBe(false);
    expect(toolMessage(1, 'call_raw')).toBe(
      'Error: tool request failed: arguments are not a JSON object: city=Lima',
    );
  });

  it('gives up on a client that does not answer within the tool’s timeout; a late result is refused', async () => {
    await declare([{ ...openMap, timeout_secs: 0.3 }]);
    h.llm.enqueue(
      sseStructuredCalls([{ id: 'call_slow', name: 'open_map', arguments: { city: 'Quito' } }]),
      sseText(['The app did not answer.']),
    );
    const turn = await h.ws.turn('map of Quito');
    expect(turn.find((m) => m.type === 'tool_result')).toMatchObject({ ok: false });
    expect(toolMessage(1, 'call_slow')).toBe(
      'Error: tool request failed: the client returned no result within 0.3s',
    );
    const from = h.ws.messages.length;
    h.ws.send({ type: 'client_tool_result', id: 'call_slow', result: 'late' });
    const error = await h.ws.waitFor((m) => m.type === 'error', from);
    expect(error).toEqual({
      type: 'error',
      code: 'invalid_message',
      message: 'no call awaits a result with id "call_slow"',
    });
  });

  it('answers a call cut short by an interrupt with "Error: cancelled" in the next request', async () => {
    await declare([openMap]);
    h.llm.enqueue(
      sseStructuredCalls([{ id: 'call_cut', name: 'open_map', arguments: { city: 'Bern' } }]),
      sseText(['Hello again.']),
    );
    const from = h.ws.messages.length;
    h.ws.send({ type: 'user_text', text: 'map of Bern' });
    await h.ws.waitFor((m) => m.type === 'client_tool_call', from);
    h.ws.send({ type: 'interrupt' });
    const end = await h.ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(end.interrupted).toBe(true);
    await h.ws.turn('hi');
    expect(toolMessage(1, 'call_cut')).toBe('Error: cancelled');
  });

  it('refuses bad declarations and bad results with a clear error, and the connection lives on', async () => {
    const cases: [unknown, string][] = [
      [
        [{ ...openMap, name: 'get_weather' }],
        "client_tools[0] 'get_weather': the engine has a tool of that name; choose another name; nothing was changed",
      ],
      [
        [{ name: 'a' }, { name: 'a' }],
        "client_tools[1] 'a': the name is given twice; nothing was changed",
      ],
      [
        [{ name: 'bad name' }],
        'client_tools[0] \'bad name\': field \'name\' is invalid: expected letters, digits, "_" or "-" (1 to 64 characters); nothing was changed',
      ],
      [
        [{ name: 'a', url: 'http://x' }],
        "client_tools[0] 'a': unknown field 'url': expected name, description, parameters, timeout_secs; nothing was changed",
      ],
      [
        [{ name: 'a', parameters: { type: 'objekt' } }],
        expect.stringMatching(
          /^client_tools\[0\] 'a': field 'parameters' is not a valid JSON Schema: /,
        ),
      ],
      [[42], 'client_tools[0]: expected an object; nothing was changed'],
      [
        Array.from({ length: 65 }, (_, i) => ({ name: `t${i}` })),
        '"client_tools" holds more than 64 tools',
      ],
    ] as [unknown, string][];
    for (const [tools, message] of cases) {
      const from = h.ws.messages.length;
      h.ws.send({ type: 'session.update', client_tools: tools });
      const error = await h.ws.waitFor((m) => m.type === 'error', from);
      expect(error.message).toEqual(message);
    }
    for (const bad of [
      { type: 'client_tool_result', id: 'x' },
      { type: 'client_tool_result', id: 'x', result: 1, error: 'e' },
    ]) {
      const from = h.ws.messages.length;
      h.ws.send(bad);
      const error = await h.ws.waitFor((m) => m.type === 'error', from);
      expect(error.message).toBe(
        'client_tool_result needs exactly one of "result" (what the tool gave, any JSON) and "error" (why it failed, a string)',
      );
    }
    // Nothing was declared: the model is offered the engine's tools only.
    h.llm.enqueue(sseText(['ok']));
    await h.ws.turn('hello');
    const offered = h.llm.offered(0);
    expect(offered).toEqual(['get_weather', 'missing', 'bad_verb', 'down', 'big']);
  });

  it('keeps declared tools when the session is resumed; null declares none', async () => {
    await declare([openMap]);
    const token = h.ws.messages.find((m) => m.type === 'session')!.resume_token as string;
    h.ws.close();
    await h.ws.closed;
    const again = await WsClient.connect(`${h.engine.wsUrl}?resume=${token}`);
    try {
      const session = again.messages.find((m) => m.type === 'session')!;
      expect(session.resumed).toBe(true);
      expect(session.settings.client_tools).toEqual([openMap]);
      expect((await declare(null, again)).settings.client_tools).toEqual([]);
      h.llm.enqueue(sseText(['ok']));
      await again.turn('hello');
      const offered = h.llm.offered(0);
      expect(offered).not.toContain('open_map');
    } finally {
      again.close();
    }
  });
});
