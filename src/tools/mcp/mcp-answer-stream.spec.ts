import { answeredEvents, TOO_LARGE, UNANSWERED } from './mcp-answer-stream.js';
import { RequestsInFlight } from './mcp-in-flight.js';

const encoder = new TextEncoder();
const event = (message: unknown, id?: string) =>
  `${id ? `id: ${id}\n` : ''}event: message\ndata: ${JSON.stringify(message)}\n\n`;
const result = (id: unknown, value: unknown = { content: [] }) => ({
  jsonrpc: '2.0',
  id,
  result: value,
});

/** A body of `chunks`, then its end, or `failure` (a connection cut). */
function body(chunks: string[], failure?: Error): ReadableStream<Uint8Array> {
  const left = [...chunks];
  return new ReadableStream({
    pull(controller) {
      const chunk = left.shift();
      if (chunk !== undefined) controller.enqueue(encoder.encode(chunk));
      else if (failure) controller.error(failure);
      else controller.close();
    },
  });
}

/** What the SDK reads: the stream's text, and the errors the engine added for the requests. */
async function read(stream: ReadableStream<Uint8Array>) {
  const text = await new Response(stream).text();
  const errors = [...text.matchAll(/^data: (.+)$/gm)]
    .map((m) => JSON.parse(m[1]!) as Record<string, any>)
    .filter((m) => m.error?.code === UNANSWERED || m.error?.code === TOO_LARGE);
  return { text, errors };
}

describe('answeredEvents: an MCP request answered on an event stream', () => {
  it('passes an answered stream on as it is', async () => {
    const sent = [event({ jsonrpc: '2.0', method: 'notifications/progress' }), event(result(7))];
    const { text, errors } = await read(answeredEvents(body(sent), [7], 1000));
    expect(text).toBe(sent.join(''));
    expect(errors).toEqual([]);
  });

  it('answers a request whose stream ends without its answer, as the server would have', async () => {
    const sent = [event({ jsonrpc: '2.0', method: 'notifications/progress' }), event(result(8))];
    const { errors } = await read(answeredEvents(body(sent), [7, 8], 1000));
    expect(errors).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: { code: UNANSWERED, message: 'the MCP server ended its answer without a result' },
      },
    ]);
  });

  it('takes an answer of a shape the SDK drops for none', async () => {
    for (const wrong of [
      result('a', 5),
      { jsonrpc: '2.0', id: 'a', error: { message: 'no code' } },
      [result('a')],
      { id: 'a', result: {} },
    ]) {
      const { errors } = await read(answeredEvents(body([event(wrong)]), ['a'], 1000));
      expect(errors.map((e) => e.id)).toEqual(['a']);
    }
  });

  it('says a stream that broke off did, and why', async () => {
    const cut = new TypeError('terminated', { cause: new Error('other side closed') });
    const { errors } = await read(answeredEvents(body([': ping\n\n'], cut), ['c'], 1000));
    expect(errors).toEqual([
      {
        jsonrpc: '2.0',
        id: 'c',
        error: {
          code: UNANSWERED,
          message: "the MCP server's answer broke off (other side closed)",
        },
      },
    ]);
  });

  it('leaves a stream the SDK resumes (an event carried an id) to the SDK', async () => {
    const primed = `id: e1\ndata: \n\n`;
    expect((await read(answeredEvents(body([primed]), [1], 1000))).errors).toEqual([]);
    const cut = new TypeError('terminated');
    await expect(read(answeredEvents(body([event(result(2), 'e1')], cut), [1], 1000))).rejects.toBe(
      cut,
    );
  });

  it('ends quietly once its requests were given up, resumable or not, its watch told', async () => {
    for (const id of [undefined, 'e1']) {
      const inFlight = new RequestsInFlight();
      const watch = inFlight.sent([9])!;
      const first = event({ jsonrpc: '2.0', method: 'notifications/progress' }, id);
      const cut = new DOMException('aborted', 'AbortError');
      const reader = answeredEvents(body([first], cut), [9], 1000, watch).getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe(first);
      // Given up (its fetch then aborted): what is left is its end, no error for request 9.
      inFlight.cancelled(9);
      expect(await reader.read()).toEqual({ done: true, value: undefined });
      expect(inFlight.resumesGivenUp('e1')).toBe(id !== undefined);
    }
  });

  it('stops past its limit, each request not answered told why', async () => {
    const sent = [
      event(result(1)),
      event({ jsonrpc: '2.0', method: 'x', params: 'y'.repeat(500) }),
    ];
    const { text, errors } = await read(answeredEvents(body(sent), [1, 2], 300));
    expect(text.startsWith(sent[0]!)).toBe(true);
    expect(text).not.toContain('yyy');
    expect(errors).toEqual([
      {
        jsonrpc: '2.0',
        id: 2,
        error: {
          code: TOO_LARGE,
          message: "the MCP server's answer is larger than LLM_TOOL_MAX_RESPONSE_BYTES (300 bytes)",
        },
      },
    ]);
  });
});
