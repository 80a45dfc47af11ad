import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import type { Msg } from './support/ws-client.js';

const CHECK_STORES = `def check_stores() -> str:
    """Checks the stores."""
    import time
    for i in range(1, 4):
        context.report_progress(i, 3, f"Store {i} checked")
        time.sleep(0.4)
    for row in range(1, 1001):
        context.report_progress(row, 1000)
    time.sleep(0.4)
    return "3 stores"`;

const REFUND = `def refund(amount: int) -> str:
    """Refunds an amount."""
    answer = context.confirm(f"Refund {amount} euros?")
    return {True: "refunded", False: "kept", None: "unanswered"}[answer]`;

const BOOK = `def book() -> str:
    """Books a table."""
    guests = context.ask("How many guests?", type="integer", minimum=1, maximum=8)
    seat = context.ask("Inside or outside?", choices=["Inside", "Outside"])
    extras = context.ask("Anything to order?", choices=["Bread", "Wine", "Cake"], multiple=True, maximum=2)
    name = context.ask("Your name?")
    return f"{guests!r} {seat!r} {extras!r} {name!r}"`;

/**
 * A code tool talks to the client: it calls one of the session's own tools (`tools.<name>`),
 * which the client runs, and tells it how far it has got (`context.report_progress`).
 */
describe('code tools and the client', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    CODE_TOOLS_WORKERS: '1',
    LLM_TOOLS_FILE: writeToolsFile([
      weatherTool(base),
      {
        type: 'python',
        code: 'def weather_here() -> str:\n    """The weather where the caller is."""\n    return "Here: " + str(tools.get_weather({"city": "Oslo"})) + " / " + str(tools.nowhere({}))',
        timeout_secs: 10,
      },
      {
        type: 'python',
        code: 'def greet_where() -> str:\n    """Greets the caller where they are."""\n    place = tools.get_location({"precise": False})\n    if isinstance(place, str):\n        return "No location: " + place\n    again = tools.get_location({"precise": True})\n    return "Hello from " + place["city"] + " and " + again["city"]',
        timeout_secs: 10,
      },
      { type: 'python', code: CHECK_STORES, timeout_secs: 10 },
      // Short, for answers that come after them (their time stands still while the user is
      // asked), yet long enough for the Python between the questions on a busy machine: at 0.5 s,
      // CI once saw the tool time out between two answers.
      { type: 'python', code: REFUND, timeout_secs: 1.5 },
      { type: 'python', code: BOOK, timeout_secs: 1.5 },
      {
        type: 'python',
        code: 'def bad_ask() -> str:\n    """Asks badly."""\n    return context.ask("Which?", choices=[])',
      },
      {
        type: 'python',
        code: 'def bad_progress() -> str:\n    """Reports badly."""\n    context.report_progress("half")\n    return "no"',
      },
    ]),
  }));
  const client = useClientPerTest(rig);

  /** A turn whose model calls greet_where; the client answers its client_tool_call with `reply`. */
  async function turn(reply: (call: Msg) => Record<string, unknown>) {
    const ws = client.ws;
    let from = ws.messages.length;
    ws.send({
      type: 'session.update',
      client_tools: [
        {
          name: 'get_location',
          parameters: { type: 'object', properties: { precise: { type: 'boolean' } } },
        },
      ],
    });
    await ws.waitFor((m) => m.type === 'session.updated', from);
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'greet_where', arguments: {} }]),
      sseText(['ok']),
    );
    from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'where am I?' });
    const asked = await ws.waitFor((m) => m.type === 'client_tool_call', from);
    ws.send({ type: 'client_tool_result', id: asked.id, ...reply(asked) });
    const end = await ws.waitFor(
      (m) => m.type === 'assistant_end' || (m.type === 'client_tool_call' && m.id !== asked.id),
      from,
    );
    if (end.type === 'client_tool_call') {
      ws.send({ type: 'client_tool_result', id: end.id, ...reply(end) });
      await ws.waitFor((m) => m.type === 'assistant_end', from);
    }
    const read = rig.llm.requests[1]!.body.messages.findLast((m: any) => m.role === 'tool').content;
    return { asked, read, events: ws.messages.slice(from) };
  }

  it('hands the call to the client and gives the code its result', async () => {
    const { asked, read, events } = await turn(() => ({ result: { city: 'Rome' } }));
    expect(asked).toEqual({
      type: 'client_tool_call',
      id: 'call_1:get_location',
      name: 'get_location',
      arguments: { precise: false },
    });
    expect(read).toBe('"Hello from Rome and Rome"');
    // Each call the code makes has its own id.
    expect(events.filter((m) => m.type === 'client_tool_call').map((m) => m.id)).toEqual([
      'call_1:get_location',
      'call_1:get_location:2',
    ]);
    // The model made one call: the client's tool ran inside it, announced by client_tool_call alone.
    expect(events.filter((m) => m.type === 'tool_call').map((m) => m.name)).toEqual([
      'greet_where',
    ]);
  }, 30_000);

  it('gives the code the client’s error text', async () => {
    const { read } = await turn(() => ({ error: 'location is off' }));
    expect(read).toBe('"No location: Error: location is off"');
  }, 30_000);

  it("still reaches the engine's own tools from a session that has tools of its own, and no other", async () => {
    const ws = client.ws;
    let from = ws.messages.length;
    ws.send({ type: 'session.update', client_tools: [{ name: 'get_location' }] });
    await ws.waitFor((m) => m.type === 'session.updated', from);
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_w', name: 'weather_here', arguments: {} }]),
      sseText(['ok']),
    );
    from = ws.messages.length;
    await ws.turn('weather?');
    expect(rig.tools.requests.at(-1)!.path).toBe('/Oslo');
    const read = rig.llm.requests
      .at(-1)!
      .body.messages.findLast((m: any) => m.role === 'tool').content;
    expect(read).toBe(`"Here: ok / Error: unknown tool 'nowhere'"`);
    expect(ws.messages.slice(from).some((m) => m.type === 'client_tool_call')).toBe(false);
  }, 30_000);

  it('sends its progress to the client as tool_progress: each step, the first and last of a flood', async () => {
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_s', name: 'check_stores', arguments: {} }]),
      sseText(['ok']),
    );
    const turn = await client.ws.turn('check the stores', 15_000);
    const progress = turn.filter((m) => m.type === 'tool_progress');
    expect(progress).toEqual([
      ...[1, 2, 3].map((i) => ({
        type: 'tool_progress',
        id: 'call_s',
        name: 'check_stores',
        progress: i,
        total: 3,
        message: `Store ${i} checked`,
      })),
      { type: 'tool_progress', id: 'call_s', name: 'check_stores', progress: 1, total: 1000 },
      { type: 'tool_progress', id: 'call_s', name: 'check_stores', progress: 1000, total: 1000 },
    ]);
    expect(turn.findIndex((m) => m.type === 'tool_result')).toBeGreaterThan(
      turn.indexOf(progress.at(-1)!),
    );
    expect(rig.llm.requests[1]!.body.messages.at(-1).content).toBe('"3 stores"');
  }, 30_000);

  it('asks the user a yes or no as an approval, its time standing still meanwhile (context.confirm)', async () => {
    const ws = client.ws;
    const ask = async (answer: (question: Msg) => void) => {
      rig.llm.reset();
      rig.llm.enqueue(
        sseStructuredCalls([{ id: 'call_r', name: 'refund', arguments: { amount: 120 } }]),
        sseText(['ok']),
      );
      const from = ws.messages.length;
      ws.send({ type: 'user_text', text: 'refund me' });
      const question = await ws.waitFor((m) => m.type === 'tool_confirm', from, 15_000);
      expect(question).toMatchObject({ name: 'refund', prompt: 'Refund 120 euros?' });
      answer(question);
      await ws.waitFor((m) => m.type === 'assistant_end', from, 15_000);
      return rig.llm.requests[1]!.body.messages.at(-1).content as string;
    };
    // Answered after the tool's 1.5 s: its time stood still.
    const late = (q: Msg) =>
      setTimeout(() => ws.send({ type: 'tool_confirm', id: q.id, approved: true }), 1800);
    expect(await ask(late)).toBe('"refunded"');
    expect(await ask(() => ws.send({ type: 'user_text', text: 'no' }))).toBe('"kept"');
    // No user waits on an admin's try.
    const res = await fetch(`${rig.engine.httpUrl}/api/tools/refund/call`, {
      method: 'POST',
      body: JSON.stringify({ arguments: { amount: 5 } }),
      headers: { 'content-type': 'application/json' },
    });
    expect(await res.json()).toMatchObject({ ok: true, result: '"unanswered"' });
  }, 30_000);

  it('asks the user for a number, a choice and a text, its time standing still (context.ask)', async () => {
    const ws = client.ws;
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_k', name: 'book', arguments: {} }]),
      sseText(['ok']),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'book a table' });
    const asked = (prompt: string) =>
      ws.waitFor((m) => m.type === 'tool_question' && m.prompt === prompt, from, 15_000);
    const guests = await asked('How many guests?');
    expect(guests).toMatchObject({ answer: { type: 'integer', minimum: 1, maximum: 8 } });
    // Answered after the tool's 1.5 s: its time stood still.
    await new Promise((r) => setTimeout(r, 1800));
    ws.send({ type: 'tool_answer', id: guests.id, value: 4 });
    const seat = await asked('Inside or outside?');
    expect(seat).toMatchObject({ answer: { type: 'choice', choices: ['Inside', 'Outside'] } });
    ws.send({ type: 'user_text', text: 'outside please' });
    const extras = await asked('Anything to order?');
    expect(extras).toMatchObject({ answer: { type: 'choices', max_items: 2 } });
    ws.send({ type: 'user_text', text: 'Some cake and bread' });
    const name = await asked('Your name?');
    expect(name).toMatchObject({ answer: { type: 'text' } });
    ws.send({ type: 'tool_answer', id: name.id, value: null });
    await ws.waitFor((m) => m.type === 'assistant_end', from, 15_000);
    expect(rig.llm.requests[1]!.body.messages.at(-1).content).toBe(
      `"4 'Outside' ['Bread', 'Cake'] None"`,
    );
  }, 30_000);

  it('refuses a question badly put, as an error the model reads', async () => {
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_q', name: 'bad_ask', arguments: {} }]),
      sseText(['ok']),
    );
    await client.ws.turn('ask', 15_000);
    expect(rig.llm.requests[1]!.body.messages.at(-1).content).toBe(
      'Error: TypeError: ask(): choices must be 1 to 50 non-empty strings',
    );
  }, 30_000);

  it('refuses progress that is no number, as an error the model reads', async () => {
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_b', name: 'bad_progress', arguments: {} }]),
      sseText(['ok']),
    );
    await client.ws.turn('report', 15_000);
    expect(rig.llm.requests[1]!.body.messages.at(-1).content).toBe(
      'Error: TypeError: report_progress(): progress must be a number, not str',
    );
  }, 30_000);
});
