import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { types, useTurnHarness } from './support/turn-harness.js';
import { until } from './support/waiting.js';

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

  it('answers the next turn after the user cut one off once its tool had run (a Mistral template)', async () => {
    let held: (() => void) | undefined;
    const roles = (body: any): string[] => body.messages.map((m: any) => m.role);
    h.llm.fallback = (body) => {
      const last = roles(body).at(-1);
      // The round after the tool: held before its first word until the user has cut it off.
      if (last === 'tool') {
        const [start, word, , done] = sseText(['Oslo: sunny.']).pieces;
        const gate = new Promise<void>((r) => (held = r));
        return { kind: 'sse', pieces: [start!, word!, done!], gate };
      }
      if (roles(body).some((role, i) => role === 'user' && roles(body)[i - 1] === 'tool'))
        return {
          kind: 'status',
          status: 400,
          body: '{"object":"error","message":"Conversation roles must alternate user/assistant/user/assistant/..."}',
        };
      return roles(body).includes('tool')
        ? sseText(['Sure, Rome.'])
        : sseStructuredCalls([
            { id: 'aB3dE6gH9', name: 'get_weather', arguments: { city: 'Oslo' } },
          ]);
    };
    h.ws.send({ type: 'user_text', text: 'Weather in Oslo?' });
    await h.ws.waitFor((m) => m.type === 'tool_result');
    await until(() => held !== undefined, 'the round after the tool');
    h.ws.send({ type: 'user_text', text: 'No, Rome.' });
    const end = await h.ws.waitFor((m) => m.type === 'assistant_end' && !m.interrupted);
    held!();
    expect(end).toEqual({ type: 'assistant_end', text: 'Sure, Rome.' });
    expect(h.ws.messages.filter((m) => m.type === 'error')).toEqual([]);
    // The first turn got no answer: the request closes it with an assistant message.
    const sent = h.llm.requests.at(-1)!.body.messages.map((m: any) => m.role);
    expect(sent.slice(-4)).toEqual(['assistant', 'tool', 'assistant', 'user']);
  });
});

/**
 * A conversation the agent began (a `say` greeting, as `/twilio` says one) against a server whose
 * chat template wants the user first (Gemma's, Mistral's): refused once, then opened with a user
 * message, and the user gets the answer.
 */
describe('a greeting first, against a template that wants the user first', () => {
  const h = useTurnHarness();

  it('answers the user once the engine has learned to open the conversation', async () => {
    h.llm.fallback = (body) => {
      const first = body.messages.find((m: any) => m.role !== 'system');
      return first.role === 'user'
        ? sseText(['Your order ships today.'])
        : {
            kind: 'status',
            status: 400,
            body: '{"object":"error","message":"Conversation roles must alternate user/model/user/model/..."}',
          };
    };
    h.ws.send({ type: 'say', text: 'Hello, this is the front desk.' });
    await h.ws.waitFor((m) => m.type === 'assistant_end');
    const msgs = await h.ws.turn('Where is my order?');
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Your order ships today.' });
    expect(h.ws.messages.filter((m) => m.type === 'error')).toEqual([]);
    expect(h.llm.requests.at(-1)!.body.messages.slice(1)).toEqual([
      { role: 'user', content: '(the conversation begins)' },
      { role: 'assistant', content: 'Hello, this is the front desk.' },
      { role: 'user', content: 'Where is my order?' },
    ]);
  });
});
