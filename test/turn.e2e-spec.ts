import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { deltas, MARKUP, pieces, types, useTurnHarness, xmlCall } from './support/turn-harness.js';

describe('a turn over /ws (seed §5, §8)', () => {
  const h = useTurnHarness();

  it('runs the seed §8 scenario: tool_call, then the answer, never any markup in a delta', async () => {
    h.llm.enqueue(
      sseText(pieces(`Let me check. ${xmlCall('get_weather', { city: 'Paris' })}`), 'stop'),
      sseText(pieces('It is sunny in Paris, 21 degrees.')),
    );
    const msgs = await h.ws.turn("What's the weather in Paris?");
    expect(types(msgs).filter((t) => t !== 'assistant_delta')).toEqual([
      'tool_call',
      'tool_result',
      'assistant_end',
    ]);
    expect(msgs.find((m) => m.type === 'tool_call')).toMatchObject({
      name: 'get_weather',
      arguments: { city: 'Paris' },
      // Parsed from the text, the call gets an id of the one form every chat template takes.
      id: expect.stringMatching(/^[A-Za-z0-9]{9}$/),
    });
    expect(msgs.find((m) => m.type === 'tool_result')).toMatchObject({
      name: 'get_weather',
      ok: true,
      ms: expect.any(Number),
    });
    for (const d of deltas(msgs)) expect(d).not.toMatch(MARKUP);
    expect(msgs.at(-1)).toEqual({
      type: 'assistant_end',
      text: 'Let me check. It is sunny in Paris, 21 degrees.',
    });
    expect(h.tools.requests.map((r) => r.url)).toEqual(['/Paris?format=3']);

    const [first, second] = h.llm.requests;
    expect(first!.body.tools.map((t: any) => t.function.name)).toEqual([
      'get_weather',
      'missing',
      'bad_verb',
      'down',
      'big',
    ]);
    expect(first!.body.tools[0]).toEqual({
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Weather of a city',
        parameters: expect.any(Object),
      },
    });
    expect(first!.body.tool_choice).toBe('auto');
    const call = msgs.find((m) => m.type === 'tool_call')!;
    expect(second!.body.messages.slice(-3)).toEqual([
      { role: 'user', content: "What's the weather in Paris?" },
      {
        role: 'assistant',
        content: 'Let me check. ',
        tool_calls: [
          {
            id: call.id,
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: call.id, content: 'Paris: ☀️ +21°C' },
    ]);
    expect(second!.body.messages[0]).toMatchObject({ role: 'system' });
  });

  it("reports in tool_result how long the call took, the tool's answer time included", async () => {
    h.llm.enqueue(
      sseStructuredCalls([{ id: 'call_s', name: 'get_weather', arguments: { city: 'Slowtown' } }]),
      sseText(['Foggy.']),
    );
    const msgs = await h.ws.turn('weather in Slowtown?');
    const result = msgs.find((m) => m.type === 'tool_result');
    expect(result).toMatchObject({ id: 'call_s', ok: true });
    expect(result!.ms).toBeGreaterThanOrEqual(290);
    expect(result!.ms).toBeLessThan(5000);
  });

  it('hands every error text and the truncation suffix to the model, and runs two calls of one message', async () => {
    const calls = [
      xmlCall('nope', {}),
      xmlCall('bad_verb', {}),
      xmlCall('missing', {}),
      xmlCall('down', {}),
      xmlCall('big', {}),
    ].join('\n');
    h.llm.enqueue(sseText(pieces(calls, 7)), sseText(['Sorry, the tools failed.']));
    const msgs = await h.ws.turn('try everything');
    expect(msgs.filter((m) => m.type === 'tool_call').map((m) => m.name)).toEqual([
      'nope',
      'bad_verb',
      'missing',
      'down',
      'big',
    ]);
    // Results come as calls end ('down' is retried once): each call's own is checked.
    const ok = Object.fromEntries(
      msgs.filter((m) => m.type === 'tool_result').map((m) => [m.name, m.ok]),
    );
    expect(ok).toEqual({ nope: false, bad_verb: false, missing: false, down: false, big: true });
    const toolMessages = h.llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool').map(
      (m: any) => m.content,
    );
    expect(toolMessages).toEqual([
      "Error: unknown tool 'nope'",
      "Error: invalid HTTP method 'GE T' for tool 'bad_verb'",
      'Error: HTTP 404 Not Found — no such thing',
      "Error: tool request failed: cannot reach the tool's server (ECONNREFUSED)",
      `${'z'.repeat(100)}… [truncated]`,
    ]);
    expect(msgs.at(-1)).toMatchObject({ type: 'assistant_end', text: 'Sorry, the tools failed.' });
  });

  it('executes structured streamed calls with their ids', async () => {
    h.llm.enqueue(
      sseStructuredCalls([
        { id: 'call_a', name: 'get_weather', arguments: { city: 'Rome' } },
        { id: 'call_b', name: 'get_weather', arguments: { city: 'Oslo' } },
      ]),
      sseText(['Both fine.']),
    );
    const msgs = await h.ws.turn('Rome and Oslo?');
    expect(msgs.filter((m) => m.type === 'tool_call').map((m) => m.id)).toEqual([
      'call_a',
      'call_b',
    ]);
    expect(h.tools.requests.map((r) => r.path).sort()).toEqual(['/Oslo', '/Rome']);
    const toolMessages = h.llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    expect(toolMessages.map((m: any) => [m.tool_call_id, m.content])).toEqual([
      ['call_a', 'Rome: ☀️ +21°C'],
      ['call_b', 'Oslo: ☀️ +21°C'],
    ]);
  });

  it('writes a message of only whitespace and a call as a call without content', async () => {
    h.llm.enqueue(
      sseText(['\n\n', xmlCall('get_weather', { city: 'Rome' }), '\n']),
      sseText(['Sunny.']),
    );
    await h.ws.turn('Rome?');
    const assistant = h.llm.requests[1]!.body.messages.find((m: any) => m.role === 'assistant');
    expect(assistant).toMatchObject({ role: 'assistant', content: null });
    expect(assistant.tool_calls).toHaveLength(1);
  });

  it("checks arguments against the tool's parameters: the model learns what is wrong, the tool is not called", async () => {
    h.llm.enqueue(
      sseStructuredCalls([
        { id: 'call_a', name: 'get_weather', arguments: { town: 'Rome' } },
        { id: 'call_b', name: 'get_weather', arguments: { city: 7 } },
      ]),
      sseText(['Let me ask again.']),
    );
    const msgs = await h.ws.turn('Weather?');
    expect(msgs.filter((m) => m.type === 'tool_result').map((m) => m.ok)).toEqual([false, true]);
    // A clear value of another type is coerced (7 → "7"); a missing argument is refused.
    expect(h.tools.requests.map((r) => r.path)).toEqual(['/7']);
    const toolMessages = h.llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    expect(toolMessages[0].content).toBe(
      "Error: tool request failed: invalid arguments: arguments must have required property 'city'",
    );
  });

  it('gives two parallel calls distinct ids when the server repeats one, so the next request pairs each result', async () => {
    h.llm.enqueue(
      sseStructuredCalls([
        { id: 'call_0', name: 'get_weather', arguments: { city: 'Rome' } },
        { id: 'call_0', name: 'get_weather', arguments: { city: 'Oslo' } },
      ]),
      sseText(['Both fine.']),
    );
    const msgs = await h.ws.turn('Rome and Oslo?');
    const ids = msgs.filter((m) => m.type === 'tool_call').map((m) => m.id as string);
    expect(ids[0]).toBe('call_0');
    expect(new Set(ids).size).toBe(2);
    const second = h.llm.requests[1]!.body.messages;
    const assistant = second.find((m: any) => m.role === 'assistant' && m.tool_calls);
    expect(assistant.tool_calls.map((c: any) => c.id)).toEqual(ids);
    const toolMessages = second.filter((m: any) => m.role === 'tool');
    expect(toolMessages.map((m: any) => [m.tool_call_id, m.content])).toEqual([
      [ids[0], 'Rome: ☀️ +21°C'],
      [ids[1], 'Oslo: ☀️ +21°C'],
    ]);
  });
});
