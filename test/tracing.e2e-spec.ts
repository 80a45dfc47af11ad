import { sseStructuredCalls, sseTextWithUsage } from './support/fake-llm.js';
import { OtlpCollector, type ExportedSpan } from './support/otlp-collector.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { until } from './support/waiting.js';
import { WsClient } from './support/ws-client.js';

/** A code tool calling an HTTP tool and making a request of its own. */
const TWICE = `import requests

def weather_twice(city: str) -> list:
    """Weather of a city, twice."""
    return [tools.get_weather({"city": city}), requests.get("BASE/direct/" + city).text]
`;

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;
const parentOf = (header: unknown) => TRACEPARENT.exec(String(header))?.[2];

/**
 * Spans of turns, completions and tool calls go to an OpenTelemetry collector
 * (OTEL_EXPORTER_OTLP_ENDPOINT), each request's `traceparent` naming the span it belongs to.
 */
describe('spans exported to an OpenTelemetry collector (OTLP/HTTP JSON)', () => {
  const collector = new OtlpCollector();
  let collectorUrl = '';
  beforeAll(async () => {
    collectorUrl = await collector.start();
  });
  afterAll(() => collector.stop());
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_RETRIES: '0',
      LLM_TOOLS_FILE: writeToolsFile([
        weatherTool(base),
        { name: 'book', url: `${base}/book`, method: 'POST', parameters: { type: 'object' } },
        { type: 'python', code: TWICE.replace('BASE', base) },
      ]),
      CODE_TOOLS_WORKERS: '1',
      CODE_TOOLS_ALLOW_PRIVATE_NETWORK: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=s3cr%20et,x-team=voice',
      OTEL_SERVICE_NAME: 'front-desk',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test,k8s.pod.name=engine-0',
      OTEL_BSP_SCHEDULE_DELAY: '20',
    }),
    (req, res) => {
      if (req.path === '/book') res.writeHead(503).end('card visa-4111 declined');
      else res.end('Rome: sunny');
    },
  );
  const client = useClientPerTest(rig);
  beforeEach(() => {
    collector.requests.length = 0;
  });

  /** The spans of the trace whose turn span has `sessionId`, once the turn's span has arrived. */
  async function traceOf(sessionId: string): Promise<ExportedSpan[]> {
    const turn = () =>
      collector.spans().find((s) => s.name === 'turn' && s.attributes['session.id'] === sessionId);
    await until(() => turn() !== undefined, 'the turn span', 10_000);
    const { traceId } = turn()!;
    return collector.spans().filter((s) => s.traceId === traceId);
  }
  const sessionId = () => client.ws.messages.find((m) => m.type === 'session')!.session_id;

  it('sends a turn with its completions and tool calls as one trace, the requests under their spans', async () => {
    rig.llm.enqueue(
      sseStructuredCalls([
        { id: 'c1', name: 'get_weather', arguments: { city: 'Rome' } },
        { id: 'c2', name: 'book', arguments: { card: 'visa-4111' } },
      ]),
      sseTextWithUsage(['It is sunny.'], 120, 7),
    );
    await client.ws.turn('what is the weather like, my secret word is pineapple', 10_000);
    const spans = await traceOf(sessionId());

    const turn = spans.find((s) => s.name === 'turn')!;
    expect(turn.parentSpanId).toBeUndefined();
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.conversation.id': sessionId(),
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 7,
    });
    // The trace is the turn's: its id is the one every request of the turn carried.
    expect(TRACEPARENT.exec(String(rig.tools.requests[0]!.headers.traceparent))![1]).toBe(
      turn.traceId,
    );
    expect(String(turn.attributes['engine.turn_id']).replace(/-/g, '')).toBe(turn.traceId);

    const chats = spans.filter((s) => s.name === 'chat m');
    expect(chats).toHaveLength(2);
    expect(chats.every((s) => s.parentSpanId === turn.spanId && s.kind === 3)).toBe(true);
    // Each completion request's traceparent names its span: the LLM server's spans go under it.
    expect(rig.llm.requests.map((r) => parentOf(r.headers.traceparent)).sort()).toEqual(
      chats.map((s) => s.spanId).sort(),
    );
    const last = chats.find((s) => s.attributes['gen_ai.usage.input_tokens'] === 120)!;
    expect(last.attributes).toMatchObject({
      'gen_ai.request.model': 'm',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.output_tokens': 7,
      'engine.streamed': true,
      'engine.tools_offered': 3,
    });

    const weather = spans.find((s) => s.name === 'execute_tool get_weather')!;
    expect(weather.parentSpanId).toBe(turn.spanId);
    expect(weather.status.code ?? 0).toBe(0);
    expect(weather.attributes).toMatchObject({
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': 'c1',
      'engine.tool.kind': 'http',
    });
    const toolRequest = (path: string) => rig.tools.requests.find((r) => r.path === path)!;
    expect(parentOf(toolRequest('/Rome').headers.traceparent)).toBe(weather.spanId);

    const book = spans.find((s) => s.name === 'execute_tool book')!;
    expect(book.status).toEqual({ code: 2, message: 'HTTP 503 Service Unavailable' });
    expect(book.attributes['error.type']).toBe('503');
    expect(parentOf(toolRequest('/book').headers.traceparent)).toBe(book.spanId);

    // Never the user's words, the arguments, the results or a backend's answer (words no id or
    // timestamp holds: a span's nanoseconds once held "4111").
    const exported = collector.requests.map((r) => r.body).join('\n');
    for (const text of ['pineapple', 'Rome', 'visa-4111', 'sunny'])
      expect(exported).not.toContain(text);

    expect(turn.resource).toMatchObject({
      'service.name': 'front-desk',
      'service.version': '0.1.0',
      'deployment.environment': 'test',
      'k8s.pod.name': 'engine-0',
    });
    expect(collector.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/traces',
      headers: { 'x-api-key': 's3cr et', 'x-team': 'voice' },
    });
  });

  it("links each turn to the client's side of the connection (its upgrade's traceparent)", async () => {
    const gateway = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
    const ws = await WsClient.connect(rig.engine.wsUrl, {
      traceparent: `00-${gateway.traceId}-${gateway.spanId}-01`,
    });
    try {
      rig.llm.enqueue(sseTextWithUsage(['Hi.'], 3, 1), sseTextWithUsage(['Hi again.'], 5, 2));
      await ws.turn('hello');
      await ws.turn('hello again');
      const id = ws.messages.find((m) => m.type === 'session')!.session_id as string;
      const turns = () =>
        collector.spans().filter((s) => s.name === 'turn' && s.attributes['session.id'] === id);
      await until(() => turns().length === 2, 'both turn spans', 10_000);
      // Each turn is a trace of its own (its id the turn's), linked to the gateway's span.
      expect(new Set(turns().map((s) => s.traceId)).size).toBe(2);
      expect(turns().map((s) => s.links)).toEqual([[gateway], [gateway]]);
    } finally {
      ws.close();
    }
    // Without a traceparent (this test's other client), no link.
    rig.llm.enqueue(sseTextWithUsage(['Hi.'], 3, 1));
    await client.ws.turn('hello');
    expect((await traceOf(sessionId())).find((s) => s.name === 'turn')!.links).toEqual([]);
  });

  it('gives a call of the client’s own tool a span lasting until the client answers', async () => {
    const from = client.ws.messages.length;
    client.ws.send({
      type: 'session.update',
      client_tools: [
        { name: 'open_map', description: 'Shows a city', parameters: { type: 'object' } },
      ],
    });
    await client.ws.waitFor((m) => m.type === 'session.updated', from);
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'c1', name: 'open_map', arguments: { city: 'Rome' } }]),
      sseTextWithUsage(['Shown.'], 3, 1),
    );
    client.ws.send({ type: 'user_text', text: 'map' });
    const asked = await client.ws.waitFor((m) => m.type === 'client_tool_call', from);
    await new Promise((resolve) => setTimeout(resolve, 60)); // the user looks at the app
    client.ws.send({ type: 'client_tool_result', id: asked.id, error: 'no map here' });
    await client.ws.waitFor((m) => m.type === 'assistant_end', from);
    const spans = await traceOf(sessionId());
    const turn = spans.find((s) => s.name === 'turn')!;
    const call = spans.find((s) => s.name === 'execute_tool open_map')!;
    expect(call).toMatchObject({
      parentSpanId: turn.spanId,
      attributes: { 'engine.tool.kind': 'client', 'gen_ai.tool.call.id': 'c1' },
      status: { code: 2 },
    });
    expect(call.end - call.start).toBeGreaterThanOrEqual(50);
  });

  it("puts a code tool's calls and requests under its span", async () => {
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'c1', name: 'weather_twice', arguments: { city: 'Rome' } }]),
      sseTextWithUsage(['Sunny.'], 10, 2),
    );
    await client.ws.turn('weather?', 20_000);
    const spans = await traceOf(sessionId());
    const turn = spans.find((s) => s.name === 'turn')!;
    const code = spans.find((s) => s.name === 'execute_tool weather_twice')!;
    expect(code.parentSpanId).toBe(turn.spanId);
    expect(code.attributes['engine.tool.kind']).toBe('python');
    const inner = spans.find((s) => s.name === 'execute_tool get_weather')!;
    expect(inner.parentSpanId).toBe(code.spanId);
    expect(inner.attributes['gen_ai.tool.call.id']).toBe('c1:get_weather');
    const request = (path: string) => rig.tools.requests.find((r) => r.path === path)!;
    expect(parentOf(request('/Rome').headers.traceparent)).toBe(inner.spanId);
    expect(parentOf(request('/direct/Rome').headers.traceparent)).toBe(code.spanId);
  }, 30_000);

  it('marks a turn the LLM server failed as failed, and an interrupted one as interrupted', async () => {
    rig.llm.enqueue({ kind: 'status', status: 400, body: '{"error":{"message":"bad model"}}' });
    await client.ws.turn('hello', 10_000);
    const failed = await traceOf(sessionId());
    const turn = failed.find((s) => s.name === 'turn')!;
    expect(turn.status.code).toBe(2);
    expect(turn.attributes['error.type']).toBe('llm_failed');
    expect(turn.status.message).toContain('bad model');
    expect(failed.find((s) => s.name === 'chat m')!.status.code).toBe(2);

    collector.requests.length = 0;
    rig.llm.enqueue({ kind: 'hang' });
    const from = client.ws.messages.length;
    client.ws.send({ type: 'user_text', text: 'hello again' });
    await until(() => rig.llm.requests.length === 2, 'the second request');
    client.ws.send({ type: 'interrupt' });
    await client.ws.waitFor((m) => m.type === 'assistant_end', from);
    const interrupted = await traceOf(sessionId());
    for (const name of ['turn', 'chat m']) {
      const span = interrupted.find((s) => s.name === name)!;
      expect(span.attributes['engine.interrupted']).toBe(true);
      expect(span.status.code ?? 0).toBe(0); // unset: an interruption is no failure
    }
  });
});
