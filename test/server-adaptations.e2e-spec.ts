import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { types, useTurnHarness } from './support/turn-harness.js';

/**
 * A turn with a tool call through /ws against servers that refuse part of the standard round
 * trip: the engine learns from the refusal and the user sees an answer, not an error.
 */
describe('a tool-calling turn against a server that refuses part of the round trip', () => {
  const h = useTurnHarness();

  /** The server: a call first; then the answer, unless `refuses` says what it refuses. */
  const server = (refuses: (body: any) => string | undefined) => (body: any) => {
    if (!body.messages.some((m: any) => m.role === 'tool'))
      return sseStructuredCalls([
        { id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } },
      ]);
    const refusal = refuses(body);
    if (refusal) return { kind: 'status' as const, status: 400, body: refusal };
    return sseText(['Oslo: sunny.']);
  };

  it.each([
    [
      'Ollama, a null content',
      (body: any) =>
        body.messages.some((m: any) => m.role === 'assistant' && m.content === null)
          ? '{"error":{"message":"invalid message content type: <nil>","type":"invalid_request_error"}}'
          : undefined,
    ],
    [
      "a Mistral template, the server's own call id",
      (body: any) =>
        body.messages.some(
          (m: any) => m.role === 'tool' && !/^[A-Za-z0-9]{9}$/.test(m.tool_call_id),
        )
          ? '{"object":"error","message":"Tool call IDs should be alphanumeric strings with length 9!"}'
          : undefined,
    ],
  ])('answers the user: %s', async (_server, refuses) => {
    h.llm.fallback = server(refuses);
    const msgs = await h.ws.turn('Weather in Oslo?');
    expect(types(msgs).filter((t) => t !== 'assistant_delta')).toEqual([
      'tool_call',
      'tool_result',
      'assistant_end',
    ]);
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Oslo: sunny.' });
    expect(h.tools.requests.map((r) => r.path)).toEqual(['/Oslo']);
  });
});
