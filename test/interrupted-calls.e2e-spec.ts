import type { ServerResponse } from 'node:http';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { firstHeld, weatherTool, writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';
import { McpTestServer, useMcpServer } from './support/mcp-server.js';
import { until } from './support/waiting.js';

const bookTool = (base: string) => ({
  name: 'book_table',
  description: 'Books a table',
  parameters: { type: 'object', properties: { time: { type: 'string' } } },
  url: `${base}/book`,
  method: 'POST',
  timeout_secs: 30,
});
const book = { id: 'call_b', name: 'book_table', arguments: { time: '20:00' } };
const GOES_ON =
  "Not finished when the turn was interrupted: book_table's request had been sent, and it goes on; its result will come in a later message. Do not call book_table again for this.";
const TOLD =
  '[Not said by the user: the result of book_table (call call_b), which ran in the background. Tell the user what it means for them.]\nbooked: table 4 at 20:00';

/** The booking requests the tool server holds, answered by the test. */
type Held = { res: ServerResponse; closed: Promise<void> };
function useRig(env: Record<string, string>) {
  const held: Held[] = [];
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([bookTool(base), weatherTool(base)]),
      ...env,
    }),
    (req, res) => {
      if (req.path !== '/book') return void res.end('Rome: sunny');
      held.push({ res, closed: new Promise((resolve) => res.once('close', resolve)) });
    },
  );
  beforeEach(() => (held.length = 0));
  return { rig, held };
}

/** Starts a turn whose booking call the tool server holds; resolves once it does. */
async function bookingHeld(ws: WsClient, rig: ReturnType<typeof useRig>['rig'], held: Held[]) {
  rig.llm.enqueue(sseStructuredCalls([book]));
  const from = ws.messages.length;
  ws.send({ type: 'user_text', text: 'Book a table at 8 pm.' });
  await ws.waitFor((m) => m.type === 'tool_call', from);
  return { call: await firstHeld(held), from };
}

/**
 * A call that acts (a POST: a booking, a payment), still running when the user cuts its turn:
 * its request may already have done its work, so it is let finish and its result told later,
 * rather than aborted with the model told it was cancelled (and booking again).
 */
describe('calls that act, running when their turn is cut', () => {
  const { rig, held } = useRig({ SESSION_RESUME_SECS: '5' });
  const client = useClientPerTest(rig);

  it('go on: the model reads that the result will come, then reads it in a turn of its own', async () => {
    const { ws } = client;
    const { call, from } = await bookingHeld(ws, rig, held);
    rig.llm.enqueue(sseText(['It is booking. ', 'Anything else?']));
    ws.send({ type: 'interrupt' });
    expect(await ws.waitFor((m) => m.type === 'assistant_end', from)).toEqual({
      type: 'assistant_end',
      text: '',
      interrupted: true,
    });
    await ws.turn('Is it done?');
    expect(rig.llm.requests[1]!.body.messages.slice(-3)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_b',
            type: 'function',
            function: { name: 'book_table', arguments: '{"time":"20:00"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_b', content: GOES_ON },
      { role: 'user', content: 'Is it done?' },
    ]);
    let closed = false;
    void call.closed.then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false); // the booking request was not aborted
    rig.llm.enqueue(sseText(['Your table is booked: ', 'table 4.']));
    const told = ws.messages.length;
    call.res.end('booked: table 4 at 20:00');
    expect(
      await ws.waitFor((m) => m.type === 'tool_result' && m.background === 'done', told),
    ).toMatchObject({ id: 'call_b', name: 'book_table', ok: true });
    expect(await ws.waitFor((m) => m.type === 'assistant_end', told)).toEqual({
      type: 'assistant_end',
      text: 'Your table is booked: table 4.',
    });
    expect(rig.llm.requests[2]!.body.messages.at(-1)).toEqual({ role: 'user', content: TOLD });
  });

  it('go on through a dropped connection, told on the one that resumes the session', async () => {
    const { ws } = client;
    const { call } = await bookingHeld(ws, rig, held);
    const token = ws.messages.find((m) => m.type === 'session')!.resume_token as string;
    ws.close();
    await ws.closed;
    const back = await WsClient.connect(`${rig.engine.wsUrl}?resume=${encodeURIComponent(token)}`);
    rig.llm.enqueue(sseText(['Your table is booked.']));
    call.res.end('booked: table 4 at 20:00');
    expect(await back.waitFor((m) => m.type === 'assistant_end')).toEqual({
      type: 'assistant_end',
      text: 'Your table is booked.',
    });
    expect(rig.llm.requests[1]!.body.messages.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'call_b', content: GOES_ON },
      { role: 'user', content: TOLD },
    ]);
    back.close();
  });

  it("cut by the user's next words, with a call that changes nothing beside it: told after the turn those words start", async () => {
    const { ws } = client;
    rig.llm.enqueue(
      sseStructuredCalls([
        { id: 'call_w', name: 'get_weather', arguments: { city: 'Rome' } },
        book,
      ]),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Weather, and book a table.' });
    // The weather's result came; the booking is held.
    await ws.waitFor((m) => m.type === 'tool_result' && m.id === 'call_w', from);
    const call = await firstHeld(held);
    let open!: () => void;
    rig.llm.enqueue(
      { ...sseText(['Sure, ', '9 pm then.']), gate: new Promise<void>((r) => (open = r)) },
      sseText(['Booked: ', 'table 4.']),
    );
    const next = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Make it 9 pm.' });
    await ws.waitFor((m) => m.type === 'assistant_delta', next);
    expect(rig.llm.requests[1]!.body.messages.slice(-4)).toEqual([
      expect.objectContaining({ role: 'assistant' }),
      { role: 'tool', tool_call_id: 'call_w', content: 'Rome: sunny' },
      { role: 'tool', tool_call_id: 'call_b', content: GOES_ON },
      { role: 'user', content: 'Make it 9 pm.' },
    ]);
    // The result comes while that turn streams: told once it has ended, not cutting it.
    call.res.end('booked: table 4 at 20:00');
    await ws.waitFor((m) => m.type === 'tool_result' && m.background === 'done', next);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(rig.llm.requests).toHaveLength(2);
    open();
    const first = await ws.waitFor((m) => m.type === 'assistant_end' && !m.interrupted, next);
    expect(first).toEqual({ type: 'assistant_end', text: 'Sure, 9 pm then.' });
    const after = ws.messages.indexOf(first) + 1;
    expect(await ws.waitFor((m) => m.type === 'assistant_end', after)).toEqual({
      type: 'assistant_end',
      text: 'Booked: table 4.',
    });
    const told = rig.llm.requests[2]!.body.messages as { content: string }[];
    expect(told.at(-1)).toEqual({ role: 'user', content: TOLD });
    expect(told.filter((m) => m.content?.includes('booked: table 4'))).toHaveLength(1);
  });

  it('a call that changes nothing (a GET) is still aborted: "Error: cancelled"', async () => {
    const { ws } = client;
    rig.tools.respond(() => undefined); // never answers
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_w', name: 'get_weather', arguments: { city: 'Rome' } }]),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Weather?' });
    await ws.waitFor((m) => m.type === 'tool_call', from);
    await new Promise((resolve) => setTimeout(resolve, 50));
    ws.send({ type: 'interrupt' });
    await ws.waitFor((m) => m.type === 'assistant_end', from);
    rig.tools.respond((_req, res) => res.end('ok'));
    rig.llm.enqueue(sseText(['Fine.']));
    await ws.turn('Never mind.');
    expect(
      rig.llm.requests[1]!.body.messages.filter((m: { role: string }) => m.role === 'tool'),
    ).toEqual([{ role: 'tool', tool_call_id: 'call_w', content: 'Error: cancelled' }]);
  });
});

describe('LLM_TOOL_INTERRUPTED_CALLS=abort', () => {
  const { rig, held } = useRig({ LLM_TOOL_INTERRUPTED_CALLS: 'abort' });
  const client = useClientPerTest(rig);

  it('aborts a call that acts with its turn: the model reads "Error: cancelled"', async () => {
    const { ws } = client;
    const { call, from } = await bookingHeld(ws, rig, held);
    ws.send({ type: 'interrupt' });
    await ws.waitFor((m) => m.type === 'assistant_end', from);
    await call.closed; // the booking request was aborted
    rig.llm.enqueue(sseText(['Sorry.']));
    await ws.turn('Is it done?');
    expect(rig.llm.requests[1]!.body.messages.at(-2)).toEqual({
      role: 'tool',
      tool_call_id: 'call_b',
      content: 'Error: cancelled',
    });
  });
});

describe('an MCP call that acts, running when its turn is cut', () => {
  let release: (() => void) | undefined;
  const mcp = new McpTestServer([
    {
      name: 'send_payment',
      answer: (_args, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => resolve({ content: [] }), { once: true });
          release = () => resolve({ content: [{ type: 'text', text: 'paid: 42 EUR' }] });
        }),
    },
  ]);
  const server = useMcpServer(mcp);
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([{ type: 'mcp', name: 'send_payment', url: server.url }]),
  }));
  const client = useClientPerTest(rig);

  it('is not cancelled on its server, and its result is told', async () => {
    const { ws } = client;
    rig.llm.enqueue(sseStructuredCalls([{ id: 'call_p', name: 'send_payment', arguments: {} }]));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Pay it.' });
    await ws.waitFor((m) => m.type === 'tool_call', from);
    await until(() => release !== undefined, 'the call on the server');
    ws.send({ type: 'interrupt' });
    await ws.waitFor((m) => m.type === 'assistant_end', from);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(mcp.cancellations).toBe(0);
    rig.llm.enqueue(sseText(['The payment went through.']));
    const told = ws.messages.length;
    release!();
    expect(await ws.waitFor((m) => m.type === 'assistant_end', told)).toEqual({
      type: 'assistant_end',
      text: 'The payment went through.',
    });
    expect(rig.llm.requests[1]!.body.messages.at(-1).content).toMatch(
      /^\[Not said by the user: the result of send_payment \(call call_p\).*\]\npaid: 42 EUR$/,
    );
  });
});
