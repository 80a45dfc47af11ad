import { Logger } from '@nestjs/common';
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

  it('falls back to a non-streamed request when a round streams back empty: a call there is executed', async () => {
    h.llm.enqueue(
      sseText([], 'tool_calls'),
      {
        kind: 'json',
        body: {
          choices: [
            {
              message: { role: 'assistant', content: xmlCall('get_weather', { city: 'Lima' }) },
              finish_reason: 'stop',
            },
          ],
        },
      },
      sseText(['Lima is sunny.']),
    );
    const msgs = await h.ws.turn('Lima?');
    expect(msgs.find((m) => m.type === 'tool_call')).toMatchObject({
      name: 'get_weather',
      arguments: { city: 'Lima' },
    });
    expect(h.llm.requests.map((r) => r.body.stream)).toEqual([true, false, true]);
    expect(msgs.at(-1)).toMatchObject({ text: 'Lima is sunny.' });
  });

  it('falls back to a non-streamed request whose text is then sent as deltas', async () => {
    h.llm.enqueue(sseText([]), {
      kind: 'json',
      body: {
        choices: [
          { message: { role: 'assistant', content: 'Hello there.' }, finish_reason: 'stop' },
        ],
      },
    });
    const msgs = await h.ws.turn('hi');
    expect(deltas(msgs).join('')).toBe('Hello there.');
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Hello there.' });
    expect(h.llm.requests).toHaveLength(2);
  });

  it('logs why the user got no answer, or only its start: the reason the server gave', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => {});
    try {
      const reply = (content: string, finish: string) => ({
        kind: 'json' as const,
        body: { choices: [{ message: { role: 'assistant', content }, finish_reason: finish }] },
      });
      h.llm.enqueue(sseText([], 'length'), reply('', 'length'));
      expect(await h.ws.turn('hi')).toEqual([{ type: 'assistant_end', text: '' }]);
      h.llm.enqueue(sseText(['It is sunny and'], 'length'));
      await h.ws.turn('hi');
      h.llm.enqueue(sseText([], 'content_filter'), reply('', 'content_filter'));
      await h.ws.turn('hi');
      const logged = warn.mock.calls.map((c) => String(c[0]));
      const cut =
        /^the model's output was cut off at its token limit \(finish_reason "length"\): raise the server's max_tokens \(LLM_EXTRA_BODY\) \(session_id=[\w-]+ turn_id=[\w-]+\)$/;
      expect(logged.filter((l) => cut.test(l))).toHaveLength(2);
      expect(logged).toContainEqual(
        expect.stringMatching(
          /^the server's content filter stopped the model's output \(finish_reason "content_filter"\) \(session_id=/,
        ),
      );
    } finally {
      warn.mockRestore();
    }
  });

  it('costs exactly one request for a normal text turn', async () => {
    h.llm.enqueue(sseText(['Just ', 'text.']));
    const msgs = await h.ws.turn('hi');
    expect(deltas(msgs).join('')).toBe('Just text.');
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Just text.' });
    expect(h.llm.requests).toHaveLength(1);
  });

  it('sends the deltas it reads at once as one frame, and deltas that come apart as they come', async () => {
    h.llm.enqueue({
      kind: 'sse',
      pieces: [sseText(['One ', 'frame ', 'for all.']).pieces.join('')],
    });
    const together = await h.ws.turn('hi');
    expect(together.filter((m) => m.type === 'assistant_delta')).toEqual([
      { type: 'assistant_delta', text: 'One frame for all.' },
    ]);
    h.llm.enqueue({ ...sseText(['Apart ', 'they ', 'come.']), delayMs: 50 });
    expect(deltas(await h.ws.turn('again'))).toEqual(['Apart ', 'they ', 'come.']);
  });

  it('separates the text of two rounds by one space, however the deltas were cut (none after CJK)', async () => {
    const call = xmlCall('get_weather', { city: 'Paris' });
    for (const [first, second, expected, after = ''] of [
      ['Let me check ', 'It is sunny.', 'Let me check It is sunny.'],
      ['Let me check', 'It is sunny.', 'Let me check It is sunny.'],
      ['Let me check.\n\n', 'It is sunny.', 'Let me check.\n\nIt is sunny.'],
      ['让我查一下。', '巴黎晴天。', '让我查一下。巴黎晴天。'],
      // Layout between and after calls, and before the next round's text, is not shown...
      ['Let me check.\n', '\n\nIt is sunny.', 'Let me check.\nIt is sunny.', `\n${call}\n\n`],
      // ...but text after a call in the same message keeps what separates it.
      ['Checking.', 'Sunny.', 'Checking.\n\nAnd Rome. Sunny.', '\n\nAnd Rome.'],
    ]) {
      for (const size of [1, 4, 50]) {
        h.llm.reset();
        h.llm.enqueue(
          sseText(pieces(`${first}${call}${after}`, size)),
          sseText(pieces(second!, size)),
        );
        const msgs = await h.ws.turn('Weather?');
        expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: expected });
        expect(deltas(msgs).join('')).toBe(expected);
      }
    }
  });

  it('keeps history across turns, a long answer whole', async () => {
    const pieces = Array.from({ length: 150 }, (_, i) => (i === 0 ? 'I am Ada' : ` ${i}`));
    const answer = pieces.join('');
    h.llm.enqueue(sseText(pieces), sseText(['You asked my name.']));
    const first = await h.ws.turn('Who are you?');
    expect(first.at(-1)).toEqual({ type: 'assistant_end', text: answer });
    await h.ws.turn('What did I ask?');
    expect(h.llm.requests[1]!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Who are you?' },
      { role: 'assistant', content: answer },
      { role: 'user', content: 'What did I ask?' },
    ]);
  });

  it('ends the turn with error and assistant_end on an LLM error, and the session stays usable', async () => {
    const crashed = {
      kind: 'status',
      status: 500,
      body: '{"error":{"message":"model crashed"}}',
    } as const;
    // The first try and LLM_RETRIES (2) more.
    h.llm.enqueue(crashed, crashed, crashed, sseText(['Back.']));
    const msgs = await h.ws.turn('hi');
    expect(msgs).toEqual([
      { type: 'error', code: 'llm_failed', message: 'LLM server answered HTTP 500: model crashed' },
      { type: 'assistant_end', text: '' },
    ]);
    expect(h.llm.requests).toHaveLength(3);
    expect((await h.ws.turn('again')).at(-1)).toEqual({ type: 'assistant_end', text: 'Back.' });
  });

  it('retries an overloaded LLM server before the answer begins: the user just gets the answer', async () => {
    h.llm.enqueue(
      { kind: 'status', status: 503, body: 'overloaded', headers: { 'Retry-After': '0' } },
      sseText(['Here ', 'it is.']),
    );
    const msgs = await h.ws.turn('hi');
    expect(new Set(types(msgs))).toEqual(new Set(['assistant_delta', 'assistant_end']));
    expect(deltas(msgs).join('')).toBe('Here it is.');
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Here it is.' });
    expect(h.llm.requests.map((r) => r.body.messages.at(-1))).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'user', content: 'hi' },
    ]);
  });
});
