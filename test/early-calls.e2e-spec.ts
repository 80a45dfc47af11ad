import { sseChunk, sseText, type Script } from './support/fake-llm.js';
import {
  pieces,
  types,
  useClientPerTest,
  useEngineRig,
  xmlCall,
  type EngineRig,
} from './support/turn-harness.js';
import type { WsClient } from './support/ws-client.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { until } from './support/waiting.js';

/**
 * Sends `text` while the model's message is held: no tool request may go out before `release`
 * lets the message end. Then `meanwhile` (given where the turn's messages start), and resolves at
 * the turn's end.
 */
async function sentAtRoundEnd(
  rig: EngineRig,
  ws: WsClient,
  release: () => void,
  text: string,
  meanwhile: (from: number) => Promise<void> = async () => {},
) {
  const from = ws.messages.length;
  ws.send({ type: 'user_text', text });
  await ws.waitFor((m) => m.type === 'tool_call', from);
  await new Promise((r) => setTimeout(r, 100));
  expect(rig.tools.requests).toHaveLength(0);
  release();
  await meanwhile(from);
  await ws.waitFor((m) => m.type === 'assistant_end', from);
}

/** The model writes `text`, then its stream fails (an error event in the HTTP 200 stream). */
const failingAfter = (text: string): Script => ({
  kind: 'sse',
  delayMs: 2,
  pieces: [
    ...sseText(pieces(text, 6)).pieces.slice(0, -2),
    'data: {"error":{"message":"overloaded","code":500}}\n\n',
  ],
});

/**
 * A call that changes nothing (an HTTP tool with GET, no approval) runs as soon as the model has
 * written it, while the rest of its message is still coming; others wait for the round's end.
 */
describe('calls run while the model is still writing', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOL_MAX_CALLS_PER_ROUND: '2',
    LLM_TOOLS_FILE: writeToolsFile([
      weatherTool(base),
      {
        name: 'add_note',
        url: `${base}/notes`,
        method: 'POST',
        parameters: { type: 'object', properties: { text: { type: 'string' } } },
      },
      // A read-only POST (a search API), and a GET that acts: `safe` says which they are.
      { name: 'search', url: `${base}/search`, method: 'POST', safe: true },
      { name: 'ring_bell', url: `${base}/bell`, method: 'GET', safe: false },
      { name: 'drop_note', url: `${base}/notes/{id}`, method: 'DELETE' },
      // Changes nothing, but the user approves each call: it never runs before the answer.
      { name: 'read_file', url: `${base}/file`, method: 'GET', confirm: true },
    ]),
  }));
  const client = useClientPerTest(rig);

  /** The model writes `first`, then a second call whose end waits for the returned release. */
  function holdRound(first: string) {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const text = `${first}\n${xmlCall('get_weather', { city: 'Oslo' })}`;
    rig.llm.enqueue({ ...sseText(pieces(text, 6)), gate } as Script, sseText(['Done.']));
    return release;
  }

  it('sends a GET call’s request before the model has finished its message', async () => {
    const release = holdRound(xmlCall('get_weather', { city: 'Paris' }));
    const from = client.ws.messages.length;
    client.ws.send({ type: 'user_text', text: 'weather in Paris and Oslo' });
    await until(() => rig.tools.requests.length === 1, 'the first call to reach its tool');
    expect(rig.tools.requests[0]!.path).toBe('/Paris');
    expect(rig.llm.requests).toHaveLength(1); // the model is still writing
    release();
    const end = await client.ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(end.text).toBe('Done.');
    // The client sees the same events in the same order: every call, then every result.
    expect(types(client.ws.messages.slice(from))).toEqual([
      'tool_call',
      'tool_call',
      'tool_result',
      'tool_result',
      'assistant_delta',
      'assistant_end',
    ]);
    // Results reach the model in call order, the early one included.
    const tools = rig.llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    const calls = client.ws.messages.slice(from).filter((m) => m.type === 'tool_call');
    expect(tools.map((m: any) => m.tool_call_id)).toEqual(calls.map((m) => m.id));
    expect(tools.map((m: any) => m.content)).toEqual(['ok', 'ok']);
  });

  it.each([
    ['POST', xmlCall('add_note', { text: 'buy milk' }), ['GET /Oslo', 'POST /notes']],
    ['DELETE', xmlCall('drop_note', { id: '7' }), ['DELETE /notes/7', 'GET /Oslo']],
  ])(
    'waits for the round’s end before a call that may change something (%s)',
    async (_, call, sent) => {
      const release = holdRound(call);
      await sentAtRoundEnd(rig, client.ws, release, 'that, and the weather');
      expect(rig.tools.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual(sent);
    },
  );

  it('never starts a call the user approves before the answer, even a GET; a refused one never runs', async () => {
    const release = holdRound(xmlCall('read_file', {}));
    await sentAtRoundEnd(rig, client.ws, release, 'read the file', async (from) => {
      const ask = await client.ws.waitFor((m) => m.type === 'tool_confirm', from);
      expect(rig.tools.requests.map((r) => r.path)).not.toContain('/file');
      client.ws.send({ type: 'tool_confirm', id: ask.id, approved: false });
    });
    expect(rig.tools.requests.map((r) => r.path)).toEqual(['/Oslo']);
  });

  it('takes a tool’s `safe` over its method: a read-only POST starts early, a GET that acts waits', async () => {
    let release = holdRound(xmlCall('search', {}));
    const from = client.ws.messages.length;
    client.ws.send({ type: 'user_text', text: 'search' });
    await until(() => rig.tools.requests.length === 1, 'the search to reach its tool');
    expect(rig.tools.requests[0]).toMatchObject({ method: 'POST', path: '/search' });
    release();
    await client.ws.waitFor((m) => m.type === 'assistant_end', from);

    rig.tools.requests.length = 0;
    release = holdRound(xmlCall('ring_bell', {}));
    await sentAtRoundEnd(rig, client.ws, release, 'ring');
    expect(rig.tools.requests.map((r) => r.path).sort()).toEqual(['/Oslo', '/bell']);
  });

  it('tells the model a call run early had arguments it could not read, and sends nothing for it', async () => {
    const fragment = (index: number, id: string, args: string) =>
      sseChunk({
        tool_calls: [
          { index, id, type: 'function', function: { name: 'get_weather', arguments: args } },
        ],
      });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    rig.llm.enqueue(
      {
        kind: 'sse',
        gate,
        pieces: [
          sseChunk({ role: 'assistant', content: null }),
          fragment(0, 'call_bad', 'city=Paris'),
          fragment(1, 'call_ok', '{"city":"Oslo"}'),
          sseChunk({}, 'tool_calls'),
          'data: [DONE]\n\n',
        ],
      },
      sseText(['Done.']),
    );
    const from = client.ws.messages.length;
    client.ws.send({ type: 'user_text', text: 'weather' });
    // The first call is complete (the second has begun) while the message is held: it ran early.
    await client.ws.waitFor((m) => m.type === 'tool_call' && m.id === 'call_bad', from);
    release();
    await client.ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(rig.tools.requests.map((r) => r.path)).toEqual(['/Oslo']);
    const tools = rig.llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    expect(tools).toEqual([
      {
        role: 'tool',
        tool_call_id: 'call_bad',
        content: 'Error: tool request failed: arguments are not a JSON object: city=Paris',
      },
      { role: 'tool', tool_call_id: 'call_ok', content: 'ok' },
    ]);
  });

  it('drops a call run early when the round then fails, and the session goes on', async () => {
    // The prose after the call shows it is complete; the stream then fails.
    const text = `${xmlCall('get_weather', { city: 'Lima' })}\n${'And now the forecast. '.repeat(12)}`;
    rig.llm.enqueue(failingAfter(text));
    const turn = await client.ws.turn('weather in Lima');
    expect(types(turn)).toContain('error');
    expect(turn.at(-1)).toMatchObject({ type: 'assistant_end' });
    expect(rig.tools.requests.map((r) => r.path)).toEqual(['/Lima']); // it ran early
    rig.llm.enqueue(sseText(['Hello.']));
    await client.ws.turn('hi');
    // No call of the failed round reached the history: the next request is a valid round trip.
    const messages = rig.llm.requests.at(-1)!.body.messages;
    expect(messages.some((m: any) => m.role === 'tool' || m.tool_calls)).toBe(false);
  });

  it('gives up a call run early that is still running when the round fails', async () => {
    let givenUp = false;
    rig.tools.respond((_req, res) => res.on('close', () => (givenUp = true))); // never answers
    try {
      const text = `${xmlCall('get_weather', { city: 'Lima' })}\n${'Then the forecast. '.repeat(12)}`;
      rig.llm.enqueue(failingAfter(text));
      const turn = await client.ws.turn('weather in Lima');
      expect(turn.at(-1)).toMatchObject({ type: 'assistant_end' });
      expect(rig.tools.requests.map((r) => r.path)).toEqual(['/Lima']);
      // Its request is closed, not left running to the tool's timeout (15 s).
      await until(() => givenUp, 'the early call to be given up', 2000);
    } finally {
      rig.tools.respond((_req, res) => res.end('ok')); // the rig's answer
    }
  });

  it('runs at most LLM_TOOL_MAX_CALLS_PER_ROUND calls of one message; the model reads why for the rest', async () => {
    const calls = ['Oslo', 'Lima', 'Rome']
      .map((city) => xmlCall('get_weather', { city }))
      .join('\n');
    rig.llm.enqueue(
      sseText(pieces(calls, 9)),
      sseText([xmlCall('get_weather', { city: 'Rome' })]),
      sseText(['All three.']),
    );
    const turn = await client.ws.turn('weather in three cities');
    const results = turn.filter((m) => m.type === 'tool_result');
    expect(results.map((m) => m.ok)).toEqual([true, true, false, true]);
    // The next message makes the call left out: the limit is per message, not per turn.
    expect(rig.tools.requests.map((r) => r.path).sort()).toEqual(['/Lima', '/Oslo', '/Rome']);
    const tools = rig.llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    expect(tools.map((m: any) => m.content)).toEqual([
      'ok',
      'ok',
      'Error: tool request failed: not run: at most 2 calls are run per message; make the others after these results',
    ]);
  });
});

describe('calls run when the round ends (LLM_TOOL_EARLY_START=false)', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOL_EARLY_START: 'false',
    LLM_TOOLS_FILE: writeToolsFile([weatherTool(base)]),
  }));
  const client = useClientPerTest(rig);

  it('sends no request before the model has finished its message', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const text = `${xmlCall('get_weather', { city: 'Paris' })}\n${xmlCall('get_weather', { city: 'Oslo' })}`;
    rig.llm.enqueue({ ...sseText(pieces(text, 6)), gate } as Script, sseText(['Done.']));
    await sentAtRoundEnd(rig, client.ws, release, 'weather in Paris and Oslo');
    expect(rig.tools.requests.map((r) => r.path).sort()).toEqual(['/Oslo', '/Paris']);
  });
});
