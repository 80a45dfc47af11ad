import { sseRawArgumentsCall, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useEngineRig, useClientPerTest } from './support/turn-harness.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';

/** `"confirm": true`: a call runs only once the user approves it over /client.ws. */
describe('calls the user approves', () => {
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        {
          name: 'delete_item',
          description: 'Deletes an item',
          parameters: { type: 'object', properties: { id: { type: 'string' } } },
          url: `${base}/items/{id}`,
          method: 'DELETE',
          confirm: true,
        },
        weatherTool(base),
        {
          type: 'python',
          code: 'def tidy() -> str:\n    """Tidies up."""\n    return tools.delete_item({"id": "9"})',
        },
        {
          type: 'python',
          code: 'def reset_all() -> str:\n    """Resets everything."""\n    return "reset"',
          confirm: true,
        },
      ]),
      TOOL_CONFIRM_TIMEOUT_SECS: '0.3',
      CODE_TOOLS_WORKERS: '1',
      // No spoken or typed answers: only tool_confirm answers a call.
      TOOL_CONFIRM_YES: '',
      TOOL_CONFIRM_NO: '',
    }),
    (req, res) => res.end(req.method === 'DELETE' ? 'deleted' : 'sunny'),
  );
  const client = useClientPerTest(rig);

  /** The model calls `calls`, then answers; returns the index of the first message of the turn. */
  function modelCalls(
    ...calls: { id: string; name: string; arguments: Record<string, unknown> }[]
  ) {
    rig.llm.enqueue(sseStructuredCalls(calls), sseText(['Done.']));
    return client.ws.messages.length;
  }
  const del = { id: 'call_del', name: 'delete_item', arguments: { id: '5' } };
  const toolMessage = (id: string) =>
    rig.llm.requests[1]!.body.messages.find((m: any) => m.tool_call_id === id)?.content;

  it('runs the call once the user approves it', async () => {
    const from = modelCalls(del);
    client.ws.send({ type: 'user_text', text: 'delete item 5' });
    const ask = await client.ws.waitFor((m) => m.type === 'tool_confirm', from);
    expect(ask).toEqual({
      type: 'tool_confirm',
      id: 'call_del',
      name: 'delete_item',
      arguments: { id: '5' },
    });
    expect(client.ws.messages[client.ws.messages.indexOf(ask) - 1]).toMatchObject({
      type: 'tool_call',
      id: 'call_del',
    });
    expect(rig.tools.requests).toHaveLength(0); // nothing runs before the answer
    client.ws.send({ type: 'tool_confirm', id: 'call_del', approved: true });
    await client.ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(rig.tools.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /items/5']);
    expect(client.ws.messages.find((m) => m.type === 'tool_result')).toMatchObject({
      id: 'call_del',
      ok: true,
    });
    expect(toolMessage('call_del')).toBe('deleted');
  });

  it('does not ask about a call its arguments would have refused', async () => {
    const from = modelCalls({ id: 'call_ph', name: 'delete_item', arguments: { id: '<id>' } });
    await client.ws.turn('delete that item');
    expect(client.ws.messages.slice(from).some((m) => m.type === 'tool_confirm')).toBe(false);
    expect(rig.tools.requests).toHaveLength(0);
    expect(toolMessage('call_ph')).toBe(
      'Error: tool request failed: invalid arguments: arguments/id is "<id>", a placeholder, not a value (ask the user for it if you do not know it)',
    );
    // Arguments that are no JSON object: the same, an HTTP tool's and a code tool's (said as its
    // runtime says it). The second call's id repeats the first's: the engine gives it another.
    for (const [name, said] of [
      ['delete_item', 'Error: tool request failed: arguments are not a JSON object: [5]'],
      ['reset_all', 'Error: TypeError: arguments are not a JSON object: [5]'],
    ]) {
      rig.llm.reset();
      const next = client.ws.messages.length;
      rig.llm.enqueue(sseRawArgumentsCall(name!, '[5]'), sseText(['Sorry.']));
      await client.ws.turn(`call ${name}`);
      expect(client.ws.messages.slice(next).some((m) => m.type === 'tool_confirm')).toBe(false);
      expect(rig.llm.requests[1]!.body.messages.at(-1)).toMatchObject({
        role: 'tool',
        content: said,
      });
    }
  });

  it('asks with the arguments as they will be sent', async () => {
    const from = modelCalls({ id: 'call_up', name: 'delete_item', arguments: { ID: 5 } });
    client.ws.send({ type: 'user_text', text: 'delete item 5' });
    const ask = await client.ws.waitFor((m) => m.type === 'tool_confirm', from);
    expect(ask).toMatchObject({ id: 'call_up', arguments: { id: '5' } });
    client.ws.send({ type: 'tool_confirm', id: 'call_up', approved: true });
    await client.ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(rig.tools.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /items/5']);
  });

  it('does not run a declined call, or one left unanswered, and tells the model why', async () => {
    let from = modelCalls(del);
    client.ws.send({ type: 'user_text', text: 'delete item 5' });
    await client.ws.waitFor((m) => m.type === 'tool_confirm', from);
    client.ws.send({ type: 'tool_confirm', id: 'call_del', approved: false });
    await client.ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(toolMessage('call_del')).toBe('Error: the user declined this call');
    expect(client.ws.messages.slice(from).find((m) => m.type === 'tool_result')).toMatchObject({
      ok: false,
    });

    rig.llm.reset();
    // Another id: the conversation already holds call_del, which the engine would replace.
    from = modelCalls({ ...del, id: 'call_del2' });
    const turn = await client.ws.turn('delete item 5 again');
    expect(turn.map((m) => m.type)).toEqual([
      'tool_call',
      'tool_confirm',
      'tool_result',
      'assistant_delta',
      'assistant_end',
    ]);
    expect(toolMessage('call_del2')).toBe('Error: the user did not approve this call within 0.3s');
    expect(rig.tools.requests).toHaveLength(0);
    // A late answer finds no call waiting.
    client.ws.send({ type: 'tool_confirm', id: 'call_del2', approved: true });
    expect(await client.ws.waitFor((m) => m.type === 'error', from)).toEqual({
      type: 'error',
      code: 'invalid_message',
      message: 'no call awaits approval with id "call_del2"',
    });
  });

  it('asks the next call of the message once the one before has expired unanswered', async () => {
    modelCalls({ ...del, id: 'call_x1' }, { ...del, id: 'call_x2', arguments: { id: '6' } });
    const turn = await client.ws.turn('delete 5 and 6');
    expect(turn.filter((m) => m.type !== 'assistant_delta').map((m) => [m.type, m.id])).toEqual([
      ['tool_call', 'call_x1'],
      ['tool_call', 'call_x2'],
      ['tool_confirm', 'call_x1'],
      ['tool_result', 'call_x1'],
      ['tool_confirm', 'call_x2'],
      ['tool_result', 'call_x2'],
      ['assistant_end', undefined],
    ]);
    for (const id of ['call_x1', 'call_x2'])
      expect(toolMessage(id)).toBe('Error: the user did not approve this call within 0.3s');
    expect(rig.tools.requests).toHaveLength(0);
  });

  it('lets the other calls of the round run meanwhile, and an interrupt cancels the wait', async () => {
    const from = modelCalls(
      del,
      { id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } },
      { id: 'call_del2', name: 'delete_item', arguments: { id: '6' } },
    );
    client.ws.send({ type: 'user_text', text: 'delete 5 and 6, and the weather' });
    await client.ws.waitFor((m) => m.type === 'tool_result' && m.id === 'call_w', from);
    client.ws.send({ type: 'interrupt' });
    expect(await client.ws.waitFor((m) => m.type === 'assistant_end', from)).toMatchObject({
      interrupted: true,
    });
    rig.llm.enqueue(sseText(['Ok.']));
    await client.ws.turn('never mind');
    // The second call needing approval was never asked: the first question was still open.
    const asked = client.ws.messages.slice(from).filter((m) => m.type === 'tool_confirm');
    expect(asked.map((m) => m.id)).toEqual(['call_del']);
    const messages = rig.llm.requests.at(-1)!.body.messages;
    expect(messages.filter((m: any) => m.role === 'tool')).toEqual([
      { role: 'tool', tool_call_id: 'call_del', content: 'Error: cancelled' },
      { role: 'tool', tool_call_id: 'call_w', content: 'sunny' },
      { role: 'tool', tool_call_id: 'call_del2', content: 'Error: cancelled' },
    ]);
    expect(rig.tools.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('with no answer phrases, the user speaking while a call awaits approval barges in, and "yes" is a new turn', async () => {
    const from = modelCalls(del);
    client.ws.send({ type: 'user_text', text: 'delete item 5' });
    await client.ws.waitFor((m) => m.type === 'tool_confirm', from);
    client.ws.socket.send(Buffer.alloc(3200), { binary: true }); // 0.1 s of audio
    expect(await client.ws.waitFor((m) => m.type === 'assistant_end', from)).toMatchObject({
      interrupted: true,
    });
    const next = client.ws.messages.length;
    rig.llm.enqueue(sseText(['Yes to what?']));
    client.ws.send({ type: 'user_text', text: 'yes' });
    await client.ws.waitFor((m) => m.type === 'assistant_end', next);
    expect(client.ws.messages.slice(next).some((m) => m.type === 'tool_confirmed')).toBe(false);
    expect(rig.tools.requests).toHaveLength(0);
  });

  it('refuses a call made from inside a code tool, which the user could not see first', async () => {
    modelCalls({ id: 'call_tidy', name: 'tidy', arguments: {} });
    await client.ws.turn('tidy up', 30_000);
    expect(toolMessage('call_tidy')).toBe(
      "\"Error: tool request failed: 'delete_item' needs the user's approval, so it cannot be called from another tool\"",
    );
    expect(rig.tools.requests).toHaveLength(0);
  }, 40_000);

  it('counts in /metrics what users did with the calls above', async () => {
    const scrape = await (await fetch(`${rig.engine.httpUrl}/metrics`)).text();
    const counts = { approved: 2, declined: 1, expired: 3, cancelled: 2 };
    for (const [outcome, count] of Object.entries(counts))
      expect(scrape).toMatch(
        new RegExp(`^agent_engine_tool_approvals_total\\{outcome="${outcome}"\\} ${count}$`, 'm'),
      );
  });
});
