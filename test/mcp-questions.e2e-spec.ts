import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { McpTestServer, useMcpServer, type McpTestTool } from './support/mcp-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { toolRead, useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { synthesised, until } from './support/waiting.js';
import { voiceSession, type WsClient } from './support/ws-client.js';

type Elicit = NonNullable<Parameters<McpTestTool['answer']>[1]['elicit']>;

/** The server answers with what its user answered, for the test to read in the model's request. */
const asked = (answer: unknown) => ({ content: [{ type: 'text', text: JSON.stringify(answer) }] });

/**
 * An MCP server asks its client's user for a value while it runs a call (a form of one text,
 * number or choice field): `tool_question`, answered by the client's `tool_answer`, or by what
 * the user types or keys next, which starts no turn.
 */
describe('MCP questions', () => {
  const forms: Record<string, [string, Record<string, unknown>]> = {
    ask_name: ['Your name?', { name: { type: 'string', maxLength: 40 } }],
    ask_guests: ['How many guests?', { guests: { type: 'integer', minimum: 1, maximum: 8 } }],
    ask_size: [
      'Which size?',
      {
        size: {
          type: 'string',
          oneOf: [
            { const: 'l', title: 'Large' },
            { const: 'xl', title: 'Extra large' },
          ],
        },
      },
    ],
    ask_email: ['Your email?', { email: { type: 'string', format: 'email' } }],
    ask_birthday: ['Your date of birth?', { birthday: { type: 'string', format: 'date' } }],
    ask_toppings: [
      'Which toppings?',
      {
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
      },
    ],
    ask_contact: [
      'How do we reach you?',
      {
        name: { type: 'string', title: 'Your name' },
        email: { type: 'string', format: 'email' },
        news: { type: 'boolean', title: 'Send you our news' },
        contact_by: { type: 'string', enum: ['phone', 'mail'], default: 'mail' },
      },
    ],
  };
  const mcp = new McpTestServer([
    ...Object.entries(forms).map(([name, [message, properties]]) => ({
      name,
      answer: async (_args: unknown, { elicit }: { elicit?: Elicit }) =>
        // (The test server's forms require nothing but the contact's name.)
        asked(await elicit!(message, properties, name === 'ask_contact' ? ['name'] : undefined)),
    })),
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
  const server = useMcpServer(mcp);
  /** What the speech-to-text server (the rig's other server, which also speaks) hears. */
  let heard = '';
  const rig = useEngineRig(
    (speech) => ({
      LLM_MODEL: 'm',
      TOOL_CONFIRM_TIMEOUT_SECS: '5',
      LLM_TOOLS_FILE: writeToolsFile(
        [...Object.keys(forms), 'ask_briefly'].map((name) => ({
          type: 'mcp',
          name,
          url: server.url,
        })),
      ),
      STT_BASE_URL: speech,
      TTS_PROVIDER: 'openai',
      TTS_BASE_URL: speech,
      SPEECH_AUDIO_LEAD_MS: '0',
    }),
    (req, res) => {
      if (req.path === '/audio/transcriptions')
        return void res.end(JSON.stringify({ text: heard }));
      res.writeHead(200, { 'Content-Type': 'audio/pcm' }).end(Buffer.alloc(4800, 7));
    },
  );
  const client = useClientPerTest(rig);

  /** Starts a turn whose model calls `name`; resolves with the question it asks. */
  const ask = async (ws: WsClient, name: string) => {
    rig.llm.enqueue(sseStructuredCalls([{ id: 'call_1', name, arguments: {} }]), sseText(['ok']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: `use ${name}` });
    return { from, question: await ws.waitFor((m) => m.type === 'tool_question', from) };
  };
  const answered = async (ws: WsClient, from: number) => {
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    // The answer started no turn of its own: one request for the call, one for the result.
    expect(rig.llm.requests).toHaveLength(2);
    return JSON.parse(toolRead(rig.llm)) as unknown;
  };

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

  it("says the question and a choice's options in a voice session, and takes the spoken answer", async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    try {
      const { from } = await ask(ws, 'ask_size');
      await until(
        () => synthesised(rig.tools).includes('Which size? Large or Extra large?'),
        'speech',
      );
      heard = 'Extra large, please.';
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
    ws.send({ type: 'user_text', text: 'hmm, let me think' });
    expect(
      await ws.waitFor((m) => m.type === 'tool_question' && m.unclear !== undefined, from),
    ).toMatchObject({ unclear: '"hmm, let me think" has no number in it' });
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
    const counts = { answered: 7, declined: 4, unclear: 1, cancelled: 1 };
    for (const [outcome, count] of Object.entries(counts))
      expect(scrape).toMatch(
        new RegExp(`^agent_engine_tool_questions_total\\{outcome="${outcome}"\\} ${count}$`, 'm'),
      );
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
