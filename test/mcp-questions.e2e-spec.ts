import { sseText } from './support/fake-llm.js';
import { asked, formTool, useQuestionRig } from './support/question-rig.js';
import { toolRead } from './support/turn-harness.js';
import { synthesised, until } from './support/waiting.js';
import { voiceSession } from './support/ws-client.js';

/**
 * An MCP server asks its client's user for a value while it runs a call (a form of one text,
 * number or choice field): `tool_question`, answered by the client's `tool_answer`, or by what
 * the user says, types or keys next, which starts no turn.
 */
describe('MCP questions', () => {
  const { rig, client, ask, answered, hear } = useQuestionRig([
    formTool('ask_name', 'Your name?', { name: { type: 'string', maxLength: 40 } }),
    formTool('ask_guests', 'How many guests?', {
      guests: { type: 'integer', minimum: 1, maximum: 8 },
    }),
    formTool('ask_size', 'Which size?', {
      size: {
        type: 'string',
        oneOf: [
          { const: 'l', title: 'Large' },
          { const: 'xl', title: 'Extra large' },
        ],
      },
    }),
    {
      // Gives its question up after 300 ms (the SDK cancels its request), and answers so.
      name: 'ask_briefly',
      answer: async (_args, { elicit }) =>
        asked(
          await elicit!('Your name?', { name: { type: 'string' } }, undefined, 300).catch(
            (error: Error) => error.message,
          ),
        ),
    },
  ]);

  it('asks for a text, and hands the server the value the client gives', async () => {
    const ws = client.ws;
    const { from, question } = await ask(ws, 'ask_name');
    expect(question).toEqual({
      type: 'tool_question',
      id: 'call_1',
      name: 'ask_name',
      arguments: {},
      prompt: 'Your name?',
      answer: { type: 'text', max_length: 40 },
    });
    ws.send({ type: 'tool_answer', id: 'call_1', value: 'Ada Lovelace' });
    expect(await answered(ws, from)).toEqual({
      action: 'accept',
      content: { name: 'Ada Lovelace' },
    });
    expect(ws.messages.slice(from).some((m) => m.type === 'tool_answered')).toBe(false);
  });

  it('takes a choice typed in words, told back by its title', async () => {
    const ws = client.ws;
    const { from, question } = await ask(ws, 'ask_size');
    expect(question.answer).toEqual({ type: 'choice', choices: ['Large', 'Extra large'] });
    ws.send({ type: 'user_text', text: 'The extra large one, please.' });
    expect(await ws.waitFor((m) => m.type === 'tool_answered', from)).toEqual({
      type: 'tool_answered',
      id: 'call_1',
      value: 'Extra large',
    });
    expect(await answered(ws, from)).toEqual({ action: 'accept', content: { size: 'xl' } });
  });

  it("takes a choice's place or a number under 10 keyed on the phone at once, without waiting for # or the pause", async () => {
    const ws = client.ws;
    let { from } = await ask(ws, 'ask_size');
    let keyed = performance.now();
    ws.send({ type: 'dtmf', digits: '2' });
    expect(await ws.waitFor((m) => m.type === 'tool_answered', from)).toMatchObject({
      value: 'Extra large',
    });
    // Not the pause that ends an entry (DTMF_TIMEOUT_MS, 2000 by default).
    expect(performance.now() - keyed).toBeLessThan(2000);
    expect(await answered(ws, from)).toEqual({ action: 'accept', content: { size: 'xl' } });

    rig.llm.reset();
    ({ from } = await ask(ws, 'ask_guests'));
    keyed = performance.now();
    ws.send({ type: 'dtmf', digits: '6' });
    expect(await ws.waitFor((m) => m.type === 'tool_answered', from)).toMatchObject({ value: 6 });
    expect(performance.now() - keyed).toBeLessThan(2000);
    expect(await answered(ws, from)).toEqual({ action: 'accept', content: { guests: 6 } });
  });

  it("says the question and a choice's options in a voice session, sorry when not understood, and takes the spoken answer", async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    try {
      const { from } = await ask(ws, 'ask_size');
      await until(
        () => synthesised(rig.tools).includes('Which size? Large or Extra large?'),
        'speech',
      );
      hear('Purple.');
      ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
      ws.send({ type: 'audio_end' });
      await until(
        () =>
          synthesised(rig.tools).includes(
            "Sorry, I didn't catch that. Which size? Large or Extra large?",
          ),
        'asked again',
      );
      hear('Extra large, please.');
      ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
      ws.send({ type: 'audio_end' });
      expect(await ws.waitFor((m) => m.type === 'tool_answered', from)).toMatchObject({
        value: 'Extra large',
      });
      expect(await answered(ws, from)).toEqual({ action: 'accept', content: { size: 'xl' } });
      const end = ws.messages.slice(from).find((m) => m.type === 'assistant_end');
      expect(end).toEqual({ type: 'assistant_end', text: 'ok' });
    } finally {
      ws.close();
    }
  });

  it("lets a question its server gave up go: the user's next words are a turn of their own", async () => {
    const ws = client.ws;
    const { from } = await ask(ws, 'ask_briefly');
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(toolRead(rig.llm)).toMatch(/timed out/i);
    rig.llm.enqueue(sseText(['Hello Ada.']));
    const next = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Ada' });
    expect(await ws.waitFor((m) => m.type === 'assistant_end', next)).toMatchObject({
      text: 'Hello Ada.',
    });
    expect(ws.messages.slice(from).some((m) => m.type === 'tool_answered')).toBe(false);
  });

  it('refuses a value out of bounds, asks again after words with no number, takes keyed digits', async () => {
    const ws = client.ws;
    const { from } = await ask(ws, 'ask_guests');
    ws.send({ type: 'tool_answer', id: 'call_1', value: 12 });
    expect(await ws.waitFor((m) => m.type === 'error', from)).toMatchObject({
      message: '12 is over 8; the question is still open',
    });
    ws.send({ type: 'user_text', text: 'hmm, quite a few of us' });
    expect(
      await ws.waitFor((m) => m.type === 'tool_question' && m.unclear !== undefined, from),
    ).toMatchObject({ unclear: '"hmm, quite a few of us" has no number in it' });
    ws.send({ type: 'dtmf', digits: '4#' });
    expect(await ws.waitFor((m) => m.type === 'tool_answered', from)).toMatchObject({ value: 4 });
    expect(await answered(ws, from)).toEqual({ action: 'accept', content: { guests: 4 } });
  });

  it('takes a plain no as declining a choice, and a null value as declining a text', async () => {
    const ws = client.ws;
    let { from } = await ask(ws, 'ask_size');
    ws.send({ type: 'user_text', text: 'no thanks' });
    expect(await ws.waitFor((m) => m.type === 'tool_answered', from)).toMatchObject({
      value: null,
    });
    expect(await answered(ws, from)).toEqual({ action: 'decline' });

    rig.llm.reset();
    const { from: next, question } = await ask(ws, 'ask_name');
    from = next;
    // The call's id as the engine gave it (the model's was taken in this session).
    ws.send({ type: 'tool_answer', id: question.id, value: null });
    expect(await answered(ws, from)).toEqual({ action: 'decline' });
  });

  it('gives up after three answers that do not fit: the server reads cancel', async () => {
    const ws = client.ws;
    const { from } = await ask(ws, 'ask_guests');
    for (let asked = 1; asked <= 3; asked++) {
      await until(
        () => ws.messages.slice(from).filter((m) => m.type === 'tool_question').length === asked,
        `question ${asked}`,
      );
      ws.send({ type: 'user_text', text: 'lots of us' });
    }
    expect(await answered(ws, from)).toEqual({ action: 'cancel' });
    expect(ws.messages.slice(from).filter((m) => m.type === 'tool_question')).toHaveLength(3);
  });

  it('counts in /metrics what became of the questions above', async () => {
    const scrape = await (await fetch(`${rig.engine.httpUrl}/metrics`)).text();
    const counts = { answered: 6, declined: 2, unclear: 1, cancelled: 1 };
    for (const [outcome, count] of Object.entries(counts))
      expect(scrape).toMatch(
        new RegExp(`^agent_engine_tool_questions_total\\{outcome="${outcome}"\\} ${count}$`, 'm'),
      );
  });

  it("reads the user's words in the session's language: a place, a number in words", async () => {
    const ws = client.ws;
    ws.send({ type: 'session.update', language: 'it' });
    await ws.waitFor((m) => m.type === 'session.updated');
    let { from } = await ask(ws, 'ask_size');
    ws.send({ type: 'user_text', text: 'La seconda.' });
    expect(await ws.waitFor((m) => m.type === 'tool_answered', from)).toMatchObject({
      value: 'Extra large',
    });
    expect(await answered(ws, from)).toEqual({ action: 'accept', content: { size: 'xl' } });

    rig.llm.reset();
    ({ from } = await ask(ws, 'ask_guests'));
    ws.send({ type: 'user_text', text: 'Un tavolo per sei, grazie.' });
    expect(await answered(ws, from)).toEqual({ action: 'accept', content: { guests: 6 } });
  });

  it('waits on when the user asks it to: "one moment" is no answer, and asks nothing again', async () => {
    const ws = client.ws;
    const { from } = await ask(ws, 'ask_guests');
    ws.send({ type: 'user_text', text: 'Hmm, one moment please.' });
    // Handled in order: the hold first, then the answer, with no question asked in between.
    ws.send({ type: 'user_text', text: 'We are four.' });
    expect(await answered(ws, from)).toEqual({ action: 'accept', content: { guests: 4 } });
    expect(ws.messages.slice(from).filter((m) => m.type === 'tool_question')).toHaveLength(1);
    const told = ws.messages.slice(from).filter((m) => m.type.startsWith('tool_'));
    expect(told.map((m) => m.type)).toEqual([
      'tool_call',
      'tool_question',
      'tool_held',
      'tool_answered',
      'tool_result',
    ]);
    expect(told[2]).toEqual({ type: 'tool_held', ids: ['call_1'] });
  });

  it('asks again, as first asked, when the user asks to hear it: "sorry?" is no text answer', async () => {
    const ws = client.ws;
    const { from, question } = await ask(ws, 'ask_name');
    ws.send({ type: 'user_text', text: 'Sorry?' });
    ws.send({ type: 'user_text', text: 'Ada Lovelace' });
    expect(await answered(ws, from)).toEqual({
      action: 'accept',
      content: { name: 'Ada Lovelace' },
    });
    const asked = ws.messages.slice(from).filter((m) => m.type === 'tool_question');
    expect(asked).toEqual([question, question]);
  });

  it('answers an error for an answer no question waits for, and the connection lives on', async () => {
    const ws = client.ws;
    ws.send({ type: 'tool_answer', id: 'nope', value: 'x' });
    expect(await ws.waitFor((m) => m.type === 'error')).toMatchObject({
      message: 'no call awaits an answer with id "nope"',
    });
    ws.send({ type: 'tool_answer', id: 'nope', value: { a: 1 } });
    expect(
      await ws.waitFor((m) => m.type === 'error' && m.message.includes('"value"')),
    ).toBeTruthy();
  });
});
