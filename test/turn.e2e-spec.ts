import { Engine } from './support/engine.js';
import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient, type Msg } from './support/ws-client.js';

const xmlCall = (name: string, params: Record<string, string>) =>
  `<tool_call>\n<function=${name}>\n${Object.entries(params)
    .map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`)
    .join('')}</function>\n</tool_call>`;

/** Splits text into small deltas, as a model streams it. */
const pieces = (text: string, size = 5) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
    text.slice(i * size, (i + 1) * size),
  );

const MARKUP = /<\/?(tool_call|function|parameter)|<(function|parameter)=/;

describe('a turn over /ws (seed §5, §8)', () => {
  const llm = new FakeLlm();
  const tools = new RecordingServer();
  let engine: Engine;
  let ws: WsClient;

  beforeAll(async () => {
    const base = await tools.start();
    engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'qwen3-coder',
      LLM_TOOLS_FILE: writeToolsFile([
        {
          name: 'get_weather',
          description: 'Weather of a city',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          },
          url: `${base}/{city}?format=3`,
          method: 'GET',
        },
        { name: 'missing', url: `${base}/missing`, method: 'GET' },
        { name: 'bad_verb', url: `${base}/x`, method: 'GE T' },
        { name: 'down', url: 'http://127.0.0.1:1/x', method: 'GET' },
        { name: 'big', url: `${base}/big`, method: 'GET' },
      ]),
      LLM_TOOL_RESULT_MAX_CHARS: '100',
      LLM_TOOL_MAX_ITERATIONS: '2',
    });
    tools.respond((req, res) => {
      if (req.path === '/missing') return void res.writeHead(404).end('no such thing');
      if (req.path === '/big') return void res.end('z'.repeat(500));
      res.end(`${decodeURIComponent(req.path.slice(1))}: ☀️ +21°C`);
    });
  });
  afterAll(async () => {
    await engine.stop();
    await llm.stop();
    await tools.stop();
  });
  beforeEach(async () => {
    llm.reset();
    tools.requests.length = 0;
    ws = await WsClient.connect(engine.wsUrl);
  });
  afterEach(() => ws.close());

  const types = (msgs: Msg[]) => msgs.map((m) => m.type);
  const deltas = (msgs: Msg[]) =>
    msgs.filter((m) => m.type === 'assistant_delta').map((m) => m.text as string);

  it('runs the seed §8 scenario: tool_call, then the answer, never any markup in a delta', async () => {
    llm.enqueue(
      sseText(pieces(`Let me check. ${xmlCall('get_weather', { city: 'Paris' })}`), 'stop'),
      sseText(pieces('It is sunny in Paris, 21 degrees.')),
    );
    const msgs = await ws.turn("What's the weather in Paris?");
    expect(types(msgs).filter((t) => t !== 'assistant_delta')).toEqual([
      'tool_call',
      'tool_result',
      'assistant_end',
    ]);
    expect(msgs.find((m) => m.type === 'tool_call')).toMatchObject({
      name: 'get_weather',
      arguments: { city: 'Paris' },
      id: expect.stringMatching(/^call_/),
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
    expect(tools.requests.map((r) => r.url)).toEqual(['/Paris?format=3']);

    const [first, second] = llm.requests;
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

  it('hands every error text and the truncation suffix to the model, and runs two calls of one message', async () => {
    const calls = [
      xmlCall('nope', {}),
      xmlCall('bad_verb', {}),
      xmlCall('missing', {}),
      xmlCall('down', {}),
      xmlCall('big', {}),
    ].join('\n');
    llm.enqueue(sseText(pieces(calls, 7)), sseText(['Sorry, the tools failed.']));
    const msgs = await ws.turn('try everything');
    expect(msgs.filter((m) => m.type === 'tool_call').map((m) => m.name)).toEqual([
      'nope',
      'bad_verb',
      'missing',
      'down',
      'big',
    ]);
    expect(msgs.filter((m) => m.type === 'tool_result').map((m) => m.ok)).toEqual([
      false,
      false,
      false,
      false,
      true,
    ]);
    const toolMessages = llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool').map(
      (m: any) => m.content,
    );
    expect(toolMessages).toEqual([
      "Error: unknown tool 'nope'",
      "Error: invalid HTTP method 'GE T' for tool 'bad_verb'",
      'Error: HTTP 404 Not Found — no such thing',
      expect.stringMatching(/^Error: tool request failed: .*ECONNREFUSED/),
      `${'z'.repeat(100)}… [truncated]`,
    ]);
    expect(msgs.at(-1)).toMatchObject({ type: 'assistant_end', text: 'Sorry, the tools failed.' });
  });

  it('executes structured streamed calls with their ids', async () => {
    llm.enqueue(
      sseStructuredCalls([
        { id: 'call_a', name: 'get_weather', arguments: { city: 'Rome' } },
        { id: 'call_b', name: 'get_weather', arguments: { city: 'Oslo' } },
      ]),
      sseText(['Both fine.']),
    );
    const msgs = await ws.turn('Rome and Oslo?');
    expect(msgs.filter((m) => m.type === 'tool_call').map((m) => m.id)).toEqual([
      'call_a',
      'call_b',
    ]);
    expect(tools.requests.map((r) => r.path).sort()).toEqual(['/Oslo', '/Rome']);
    const toolMessages = llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    expect(toolMessages.map((m: any) => [m.tool_call_id, m.content])).toEqual([
      ['call_a', 'Rome: ☀️ +21°C'],
      ['call_b', 'Oslo: ☀️ +21°C'],
    ]);
  });

  it('falls back to a non-streamed request when a round streams back empty: a call there is executed', async () => {
    llm.enqueue(
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
    const msgs = await ws.turn('Lima?');
    expect(msgs.find((m) => m.type === 'tool_call')).toMatchObject({
      name: 'get_weather',
      arguments: { city: 'Lima' },
    });
    expect(llm.requests.map((r) => r.body.stream)).toEqual([true, false, true]);
    expect(msgs.at(-1)).toMatchObject({ text: 'Lima is sunny.' });
  });

  it('falls back to a non-streamed request whose text is then sent as deltas', async () => {
    llm.enqueue(sseText([]), {
      kind: 'json',
      body: {
        choices: [
          { message: { role: 'assistant', content: 'Hello there.' }, finish_reason: 'stop' },
        ],
      },
    });
    const msgs = await ws.turn('hi');
    expect(deltas(msgs).join('')).toBe('Hello there.');
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Hello there.' });
    expect(llm.requests).toHaveLength(2);
  });

  it('costs exactly one request for a normal text turn', async () => {
    llm.enqueue(sseText(['Just ', 'text.']));
    const msgs = await ws.turn('hi');
    expect(types(msgs)).toEqual(['assistant_delta', 'assistant_delta', 'assistant_end']);
    expect(llm.requests).toHaveLength(1);
  });

  it('stops after LLM_TOOL_MAX_ITERATIONS tool rounds and asks once more with tool_choice "none"', async () => {
    const call = () => sseText([xmlCall('get_weather', { city: 'Loop' })]);
    llm.enqueue(call(), call(), sseText([`${xmlCall('get_weather', { city: 'Ignored' })}Enough.`]));
    const msgs = await ws.turn('loop forever');
    expect(llm.requests.map((r) => r.body.tool_choice)).toEqual(['auto', 'auto', 'none']);
    expect(msgs.filter((m) => m.type === 'tool_call')).toHaveLength(2);
    expect(tools.requests).toHaveLength(2);
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Enough.' });
  });

  it('keeps history across turns', async () => {
    llm.enqueue(sseText(['I am Ada.']), sseText(['You asked my name.']));
    await ws.turn('Who are you?');
    await ws.turn('What did I ask?');
    expect(llm.requests[1]!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Who are you?' },
      { role: 'assistant', content: 'I am Ada.' },
      { role: 'user', content: 'What did I ask?' },
    ]);
  });

  it('ends the turn with error and assistant_end on an LLM error, and the session stays usable', async () => {
    llm.enqueue(
      { kind: 'status', status: 500, body: '{"error":{"message":"model crashed"}}' },
      sseText(['Back.']),
    );
    const msgs = await ws.turn('hi');
    expect(msgs).toEqual([
      { type: 'error', message: 'LLM server answered HTTP 500: model crashed' },
      { type: 'assistant_end', text: '' },
    ]);
    expect((await ws.turn('again')).at(-1)).toEqual({ type: 'assistant_end', text: 'Back.' });
  });

  it('interrupts a turn: the LLM request is aborted, assistant_end is interrupted, history keeps what was sent', async () => {
    llm.enqueue({
      kind: 'sse',
      pieces: sseText(['Once upon a time']).pieces.slice(0, 2),
      keepOpen: true,
    });
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Tell me a story' });
    await ws.waitFor((m) => m.type === 'assistant_delta', from);
    ws.send({ type: 'interrupt' });
    const end = await ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(end).toEqual({ type: 'assistant_end', text: 'Once upon a time', interrupted: true });
    await llm.requests[0]!.aborted;
    llm.enqueue(sseText(['Ok.']));
    await ws.turn('Stop.');
    expect(llm.requests[1]!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Tell me a story' },
      { role: 'assistant', content: 'Once upon a time' },
      { role: 'user', content: 'Stop.' },
    ]);
  });

  it('a new user_text cancels the turn in flight, which ends before the new one starts', async () => {
    llm.enqueue(
      { kind: 'sse', pieces: sseText(['Long answer']).pieces.slice(0, 2), keepOpen: true },
      sseText(['Short.']),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'first' });
    await ws.waitFor((m) => m.type === 'assistant_delta', from);
    ws.send({ type: 'user_text', text: 'second' });
    await ws.waitFor((m) => m.type === 'assistant_end' && !m.interrupted, from);
    expect(types(ws.messages.slice(from))).toEqual([
      'assistant_delta',
      'assistant_end',
      'assistant_delta',
      'assistant_end',
    ]);
    expect(ws.messages.slice(from)[1]).toMatchObject({ interrupted: true });
    expect(llm.requests[0]!.wasAborted).toBe(true);
  });

  it('cancels tool calls in flight on interrupt and answers them "Error: cancelled" in history', async () => {
    tools.respond(() => undefined);
    llm.enqueue(sseText([xmlCall('get_weather', { city: 'Slow' })]));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'slow one' });
    const call = await ws.waitFor((m) => m.type === 'tool_call', from);
    await new Promise((r) => setTimeout(r, 50));
    ws.send({ type: 'interrupt' });
    expect(await ws.waitFor((m) => m.type === 'assistant_end', from)).toMatchObject({
      interrupted: true,
    });
    expect(ws.messages.slice(from).some((m) => m.type === 'tool_result')).toBe(false);
    tools.respond((req, res) => res.end('ok'));
    llm.enqueue(sseText(['Fine.']));
    await ws.turn('next');
    expect(llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool')).toEqual([
      { role: 'tool', tool_call_id: call.id, content: 'Error: cancelled' },
    ]);
  });

  it('aborts the LLM request when the socket closes', async () => {
    llm.enqueue({ kind: 'sse', pieces: sseText(['Hello']).pieces.slice(0, 2), keepOpen: true });
    ws.send({ type: 'user_text', text: 'hi' });
    await ws.waitFor((m) => m.type === 'assistant_delta');
    ws.close();
    await llm.requests[0]!.aborted;
    expect(llm.requests[0]!.wasAborted).toBe(true);
  });

  it.each([
    ['malformed JSON', '{"type": "user_text", "text": ', /malformed JSON/],
    ['an unknown type', '{"type":"dance"}', /unknown message type "dance"/],
    ['a missing text', '{"type":"user_text"}', /"text"/],
    ['an empty text', '{"type":"user_text","text":""}', /non-empty "text"/],
    ['a JSON array', '[1,2]', /JSON object/],
  ])('answers %s with an error event and keeps the connection', async (_label, frame, message) => {
    const from = ws.messages.length;
    ws.send(frame);
    expect(await ws.waitFor((m) => m.type === 'error', from)).toEqual({
      type: 'error',
      message: expect.stringMatching(message),
    });
    llm.enqueue(sseText(['still here']));
    expect((await ws.turn('ping')).at(-1)).toEqual({ type: 'assistant_end', text: 'still here' });
  });

  it('answers odd binary audio, and audio with no speech-to-text configured, with error events', async () => {
    ws.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await ws.waitFor((m) => m.type === 'error')).toMatchObject({
      message: expect.stringContaining('16-bit'),
    });
    const from = ws.messages.length;
    ws.socket.send(Buffer.alloc(3200), { binary: true });
    ws.send({ type: 'audio_end' });
    expect(await ws.waitFor((m) => m.type === 'error', from)).toMatchObject({
      message: expect.stringContaining('STT_BASE_URL'),
    });
    expect(ws.socket.readyState).toBe(ws.socket.OPEN);
  });

  it('closes with 1009 on a frame over WS_MAX_MESSAGE_BYTES', async () => {
    ws.send({ type: 'user_text', text: 'x'.repeat(1024 * 1024 + 10) });
    expect(await ws.closed).toBe(1009);
  });
});
