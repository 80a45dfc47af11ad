import { formTool, useQuestionRig } from './support/question-rig.js';

/**
 * An MCP server's form of several fields, of choices to tick, of a formatted text: each field
 * asked as a question, the answer held to the form as the server's SDK holds it.
 */
describe('MCP forms', () => {
  const { client, ask, answered } = useQuestionRig([
    formTool('ask_email', 'Your email?', { email: { type: 'string', format: 'email' } }),
    formTool('ask_birthday', 'Your date of birth?', {
      birthday: { type: 'string', format: 'date' },
    }),
    formTool('ask_toppings', 'Which toppings?', {
      toppings: {
        type: 'array',
        maxItems: 2,
        items: {
          anyOf: [
            { const: 'c', title: 'Cheese' },
            { const: 'h', title: 'Ham' },
            { const: 'o', title: 'Olives' },
          ],
        },
      },
    }),
    formTool(
      'ask_contact',
      'How do we reach you?',
      {
        name: { type: 'string', title: 'Your name' },
        email: { type: 'string', format: 'email' },
        news: { type: 'boolean', title: 'Send you our news' },
        contact_by: { type: 'string', enum: ['phone', 'mail'], default: 'mail' },
      },
      ['name'],
    ),
  ]);

  it("asks a form's fields one after the other; a no leaves an optional one out, or to its default", async () => {
    const ws = client.ws;
    const { from, question } = await ask(ws, 'ask_contact');
    expect(question).toMatchObject({
      prompt: 'How do we reach you? Your name?',
      answer: { type: 'text' },
    });
    ws.send({ type: 'user_text', text: 'Ada Lovelace.' });
    const email = await ws.waitFor(
      (m) => m.type === 'tool_question' && m.prompt === 'email?',
      from,
    );
    expect(email.answer).toEqual({ type: 'text', format: 'email', optional: true });
    ws.send({ type: 'user_text', text: 'No thanks' });
    expect(await ws.waitFor((m) => m.type === 'tool_confirm', from)).toMatchObject({
      prompt: 'Send you our news?',
    });
    ws.send({ type: 'user_text', text: 'yes' });
    const by = await ws.waitFor(
      (m) => m.type === 'tool_question' && m.prompt === 'contact by?',
      from,
    );
    expect(by.answer).toEqual({
      type: 'choice',
      choices: ['phone', 'mail'],
      optional: true,
      default: 'mail',
    });
    ws.send({ type: 'tool_answer', id: by.id, value: null });
    // The server's SDK fills in the default of a field left out (the engine declares applyDefaults).
    expect(await answered(ws, from)).toEqual({
      action: 'accept',
      content: { name: 'Ada Lovelace', news: true, contact_by: 'mail' },
    });
  });

  it('takes the choices ticked in words, within maxItems', async () => {
    const ws = client.ws;
    const { from, question } = await ask(ws, 'ask_toppings');
    expect(question.answer).toEqual({
      type: 'choices',
      choices: ['Cheese', 'Ham', 'Olives'],
      max_items: 2,
    });
    ws.send({ type: 'tool_answer', id: question.id, value: ['Cheese', 'Ham', 'Olives'] });
    expect(await ws.waitFor((m) => m.type === 'error', from)).toMatchObject({
      message: 'pick at most 2; the question is still open',
    });
    ws.send({ type: 'user_text', text: 'Olives and cheese, please.' });
    expect(await ws.waitFor((m) => m.type === 'tool_answered', from)).toMatchObject({
      value: ['Cheese', 'Olives'],
    });
    expect(await answered(ws, from)).toEqual({
      action: 'accept',
      content: { toppings: ['c', 'o'] },
    });
  });

  it("holds an answer to the server's format, and writes an address said aloud as one", async () => {
    const ws = client.ws;
    const { from, question } = await ask(ws, 'ask_email');
    expect(question.answer).toEqual({ type: 'text', format: 'email' });
    ws.send({ type: 'tool_answer', id: 'call_1', value: 'ada at home' });
    expect(await ws.waitFor((m) => m.type === 'error', from)).toMatchObject({
      message: 'the answer must match format "email"; the question is still open',
    });
    ws.send({ type: 'user_text', text: 'Ada at example dot com.' });
    expect(await ws.waitFor((m) => m.type === 'tool_answered', from)).toMatchObject({
      value: 'ada@example.com',
    });
    expect(await answered(ws, from)).toEqual({
      action: 'accept',
      content: { email: 'ada@example.com' },
    });
  });

  it('writes a date said aloud as the field wants it', async () => {
    const ws = client.ws;
    const { from } = await ask(ws, 'ask_birthday');
    ws.send({ type: 'user_text', text: 'March 3rd, 1990.' });
    expect(await ws.waitFor((m) => m.type === 'tool_answered', from)).toMatchObject({
      value: '1990-03-03',
    });
    expect(await answered(ws, from)).toEqual({
      action: 'accept',
      content: { birthday: '1990-03-03' },
    });
  });
});
