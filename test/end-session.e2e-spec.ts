import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { writeToolsFile } from './support/tools-file.js';
import { kinds, useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';

const HANG_UP = { type: 'end_session', name: 'hang_up' };

/**
 * `"type": "end_session"`: the model ends the conversation (hangs up the call) when it is over;
 * the session closes once the turn's answer, its goodbye, has been given, and cannot be resumed.
 */
describe('the model ends the session (an end_session tool)', () => {
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    CODE_TOOLS_WORKERS: '1',
    LLM_TOOLS_FILE: writeToolsFile([
      HANG_UP,
      {
        type: 'python',
        code: 'def close_ticket() -> str:\n    """Closes the ticket and ends the call."""\n    return "closed; " + str(tools.hang_up({}))',
        timeout_secs: 10,
      },
    ]),
  }));
  const client = useClientPerTest(rig);

  it('closes the session with 4004 once the goodbye has been given', async () => {
    const { ws } = client;
    const token = ws.messages[0]!.resume_token as string;
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'hang_up', arguments: {} }]),
      sseText(['Goodbye, ', 'have a nice day!']),
    );
    const turn = await ws.turn('That is all, thanks.');
    expect(kinds(turn)).toEqual(['tool_call', 'tool_result', 'assistant_delta', 'assistant_end']);
    expect(turn.at(-1)!.text).toBe('Goodbye, have a nice day!');
    expect(await ws.closed).toBe(4004);
    // The model was offered the tool as it reads it, and told what its call does.
    const [first, second] = rig.llm.requests;
    expect(first!.body.tools[0]).toEqual({
      type: 'function',
      function: {
        name: 'hang_up',
        description: expect.stringMatching(/^Ends the conversation and hangs up/),
        parameters: { type: 'object', properties: {} },
      },
    });
    expect(second!.body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content:
        'The conversation ends once this reply has been given: say a short goodbye now if you have not.',
    });
    // Over: its resume token no longer brings it back.
    const again = await WsClient.connect(`${rig.engine.wsUrl}?resume=${encodeURIComponent(token)}`);
    expect(again.messages[0]).toMatchObject({ type: 'session', resumed: false });
    again.close();
  });

  it('ends it too when a code tool calls the tool', async () => {
    const { ws } = client;
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_7', name: 'close_ticket', arguments: {} }]),
      sseText(['Your ticket is closed. Goodbye!']),
    );
    const turn = await ws.turn('Please close my ticket.', 15_000);
    expect(turn.at(-1)!.text).toBe('Your ticket is closed. Goodbye!');
    expect(await ws.closed).toBe(4004);
    // What the code returned, as code tools' results go to the model: JSON.
    expect(rig.llm.requests[1]!.body.messages.at(-1).content).toBe(
      JSON.stringify(
        'closed; The conversation ends once this reply has been given: say a short goodbye now if you have not.',
      ),
    );
  });

  it('goes on when the user cuts the goodbye short: they had more to say', async () => {
    const { ws } = client;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'hang_up', arguments: {} }]),
      { ...sseText(['Goodbye!']), gate },
      sseText(['Sure, what else?']),
    );
    let from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Bye.' });
    await ws.waitFor((m) => m.type === 'tool_result', from);
    await ws.waitFor((m) => m.type === 'assistant_delta', from);
    from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Wait, one more thing.' });
    const end = await ws.waitFor((m) => m.type === 'assistant_end' && !m.interrupted, from);
    release();
    expect(end.text).toBe('Sure, what else?');
    // A turn that ends whole afterwards does not end the session either.
    rig.llm.enqueue(sseText(['Noted.']));
    expect((await ws.turn('My order is late.')).at(-1)!.text).toBe('Noted.');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ws.closeCode).toBeUndefined();
  });

  it('refuses a definition without a name, naming the file, tool and field', async () => {
    const res = await fetch(`${rig.engine.httpUrl}/api/tools`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify([{ type: 'end_session', description: 'Hang up.' }]),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(
      /#0: field 'name' is required/,
    );
  });
});
