import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { payTool } from './support/pay-rig.js';
import { writeToolsFile } from './support/tools-file.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';

/**
 * `{"type":"dtmf"}`: keys pressed on the caller's phone, gathered into an entry (ended by `#` or
 * by DTMF_TIMEOUT_MS without a key) that the model is given as the user's turn, `DTMF: 1234#`.
 */
describe('keys pressed on the phone (dtmf)', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    // Long enough that a busy machine's pause between two keys of a test does not end an entry.
    DTMF_TIMEOUT_MS: '1500',
    LLM_TOOLS_FILE: writeToolsFile([payTool(base)]),
  }));
  const client = useClientPerTest(rig);
  const lastUser = (index: number) =>
    (rig.llm.requests[index]!.body.messages as { role: string; content: string }[]).at(-1);

  it('gives the model an entry ended by #, one key a message or several', async () => {
    const { ws } = client;
    rig.llm.enqueue(sseText(['Account 1234 found.']));
    const from = ws.messages.length;
    for (const digits of ['1', '2', '34', '#']) ws.send({ type: 'dtmf', digits });
    const end = await ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(end.text).toBe('Account 1234 found.');
    expect(lastUser(0)).toEqual({ role: 'user', content: 'DTMF: 1234#' });
    expect(rig.llm.requests).toHaveLength(1);
  });

  it('ends an entry without # after DTMF_TIMEOUT_MS with no key', async () => {
    const { ws } = client;
    rig.llm.enqueue(sseText(['Option 2.']));
    const from = ws.messages.length;
    const sent = performance.now();
    ws.send({ type: 'dtmf', digits: '2' });
    await ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(performance.now() - sent).toBeGreaterThanOrEqual(1490);
    expect(lastUser(0)).toEqual({ role: 'user', content: 'DTMF: 2' });
  });

  it('interrupts the agent at the first key, as speech over it would', async () => {
    const { ws } = client;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    rig.llm.enqueue(
      { ...sseText(['Your options are', ' many.']), gate },
      sseText(['Connecting you to sales.']),
    );
    let from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Menu?' });
    await ws.waitFor((m) => m.type === 'assistant_delta', from);
    ws.send({ type: 'dtmf', digits: '3' });
    expect(await ws.waitFor((m) => m.type === 'assistant_end', from)).toMatchObject({
      interrupted: true,
    });
    // The cut answer's request was aborted (the stream held open until then: let go first, it
    // could end before the engine, on a busy machine, had closed it).
    await rig.llm.requests[0]!.aborted;
    release();
    from = ws.messages.length;
    ws.send({ type: 'dtmf', digits: '#' });
    await ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(lastUser(1)).toEqual({ role: 'user', content: 'DTMF: 3#' });
  });

  it.each([
    ['1', true, 1],
    ['2#', false, 0],
  ] as const)(
    'answers a call awaiting approval with the yes or no key (%s), starting no turn',
    async (keys, approved, payments) => {
      const { ws } = client;
      rig.llm.enqueue(
        sseStructuredCalls([{ id: 'call_1', name: 'pay', arguments: { amount: 40 } }]),
        sseText([approved ? 'Paid.' : 'Not paid.']),
      );
      const from = ws.messages.length;
      ws.send({ type: 'user_text', text: 'Pay my bill.' });
      expect(await ws.waitFor((m) => m.type === 'tool_confirm', from)).toMatchObject({
        prompt: 'Pay 40 euros? Press 1 to confirm, 2 to cancel.',
      });
      ws.send({ type: 'dtmf', digits: keys });
      expect(await ws.waitFor((m) => m.type === 'tool_confirmed', from)).toEqual({
        type: 'tool_confirmed',
        id: 'call_1',
        approved,
      });
      const end = await ws.waitFor((m) => m.type === 'assistant_end', from);
      expect(end.text).toBe(approved ? 'Paid.' : 'Not paid.');
      expect(rig.tools.requests.filter((r) => r.path === '/pay')).toHaveLength(payments);
      // The keys answered the call: no turn of their own, no interruption of the one waiting.
      expect(rig.llm.requests).toHaveLength(2);
      expect(ws.messages.slice(from).some((m) => m.interrupted)).toBe(false);
    },
  );

  it('takes the yes key at once, without waiting for # or the pause, and drops the # pressed after it', async () => {
    const { ws } = client;
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'pay', arguments: { amount: 40 } }]),
      sseText(['Paid.']),
      sseText(['You are welcome.']),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Pay my bill.' });
    await ws.waitFor((m) => m.type === 'tool_confirm', from);
    const keyed = performance.now();
    ws.send({ type: 'dtmf', digits: '1' });
    await ws.waitFor((m) => m.type === 'tool_confirmed', from);
    expect(performance.now() - keyed).toBeLessThan(1500); // DTMF_TIMEOUT_MS
    ws.send({ type: 'dtmf', digits: '#' });
    expect((await ws.waitFor((m) => m.type === 'assistant_end', from)).text).toBe('Paid.');
    // The # made no entry of its own: the next request is the next turn's.
    expect((await ws.turn('Thanks.')).at(-1)).toMatchObject({ text: 'You are welcome.' });
    expect(rig.llm.requests).toHaveLength(3);
    expect(lastUser(2)).toEqual({ role: 'user', content: 'Thanks.' });
  });

  it('asks a call awaiting approval again with the repeat key (*), then takes the answer', async () => {
    const { ws } = client;
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'pay', arguments: { amount: 40 } }]),
      sseText(['Paid.']),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Pay my bill.' });
    const asked = await ws.waitFor((m) => m.type === 'tool_confirm', from);
    ws.send({ type: 'dtmf', digits: '*' });
    await ws.waitFor(
      () => ws.messages.slice(from).filter((m) => m.type === 'tool_confirm').length === 2,
      from,
    );
    expect(ws.messages.slice(from).filter((m) => m.type === 'tool_confirm')).toEqual([
      asked,
      asked,
    ]);
    ws.send({ type: 'dtmf', digits: '1' });
    expect((await ws.waitFor((m) => m.type === 'assistant_end', from)).text).toBe('Paid.');
    expect(rig.tools.requests.filter((r) => r.path === '/pay')).toHaveLength(1);
    expect(rig.llm.requests).toHaveLength(2);
  });

  it('refuses keys no phone has, and the session goes on', async () => {
    const { ws } = client;
    const from = ws.messages.length;
    for (const digits of ['', '12x', 5, 'e'.repeat(65)]) ws.send({ type: 'dtmf', digits });
    ws.send({ type: 'dtmf' });
    await ws.waitFor((m) => m.type === 'error', from);
    const errors = () => ws.messages.slice(from).filter((m) => m.type === 'error');
    await ws.waitFor(() => errors().length === 5, from);
    expect(errors().map((m) => m.message)).toEqual([
      '"digits" must be 1 to 64 of the keys 0-9, *, #, A-D',
      '"digits" must be 1 to 64 of the keys 0-9, *, #, A-D',
      'dtmf needs a "digits" string',
      '"digits" must be 1 to 64 of the keys 0-9, *, #, A-D',
      'dtmf needs a "digits" string',
    ]);
    rig.llm.enqueue(sseText(['Still here.']));
    expect((await ws.turn('Hello?')).at(-1)).toMatchObject({ text: 'Still here.' });
  });
});
