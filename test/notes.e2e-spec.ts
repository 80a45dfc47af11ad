import { sseText } from './support/fake-llm.js';
import { kinds, useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { Engine } from './support/engine.js';
import { WsClient, type Msg } from './support/ws-client.js';

const KEEP = (text: string) =>
  `[Not said by the user: a note from the application the conversation runs in. Keep it in mind: it asks for no answer of its own.]\n${text}`;
const ACT = (text: string) =>
  `[Not said by the user: a note from the application the conversation runs in. Act on it now: say what it means for the user, if anything.]\n${text}`;

/**
 * `{"type":"note"}`: the client tells the model what the application knows and the user did not
 * say; the model reads it from its next request on, and with `respond` answers it at once.
 */
describe('notes from the client', () => {
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    SESSION_INSTRUCTIONS_MAX_CHARS: '60',
    WS_MAX_TURNS_PER_MINUTE: '3',
  }));
  const client = useClientPerTest(rig);

  /** The messages of the model's `index`th request, without the system prompt. */
  const conversation = (index: number) =>
    (rig.llm.requests[index]!.body.messages as Msg[]).filter((m) => m.role !== 'system');

  /** A turn whose answer stops before its last piece until `open` is called. */
  function heldAnswer(words: string[]) {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    rig.llm.enqueue({ ...sseText(words), gate });
    return open;
  }

  it("between turns: no request and no event, then read before the user's next words", async () => {
    const { ws } = client;
    const from = ws.messages.length;
    ws.send({ type: 'note', text: 'The payment of 42 EUR went through.' });
    rig.llm.enqueue(sseText(['Good, ', 'it is paid.']));
    await ws.turn('Did it work?');
    expect(rig.llm.requests).toHaveLength(1);
    expect(kinds(ws.messages.slice(from))).toEqual(['assistant_delta', 'assistant_end']);
    // In a row, the note and the user's words go as one user message (roles alternate).
    expect(conversation(0)).toEqual([
      { role: 'user', content: `${KEEP('The payment of 42 EUR went through.')}\n\nDid it work?` },
    ]);
  });

  it("during a turn: not in that turn's request, and in the next one after its answer", async () => {
    const { ws } = client;
    const open = heldAnswer(['It is ', 'sunny.']);
    ws.send({ type: 'user_text', text: 'Weather?' });
    await ws.waitFor((m) => m.type === 'assistant_delta');
    ws.send({ type: 'note', text: 'The user opened the map of Rome.' });
    open();
    await ws.waitFor((m) => m.type === 'assistant_end');
    rig.llm.enqueue(sseText(['Rome, yes.']));
    await ws.turn('And there?');
    expect(conversation(0)).toEqual([{ role: 'user', content: 'Weather?' }]);
    expect(conversation(1)).toEqual([
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: 'It is sunny.' },
      { role: 'user', content: `${KEEP('The user opened the map of Rome.')}\n\nAnd there?` },
    ]);
  });

  it('during a turn the user cuts: ahead of the words that cut it', async () => {
    const { ws } = client;
    heldAnswer(['It is ', 'sunny.']);
    ws.send({ type: 'user_text', text: 'Weather?' });
    await ws.waitFor((m) => m.type === 'assistant_delta');
    ws.send({ type: 'note', text: 'The user opened the map of Milan.' });
    rig.llm.enqueue(sseText(['Milan: rain.']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'No, Milan.' });
    const cut = await ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(cut).toEqual({ type: 'assistant_end', text: 'It is sunny.', interrupted: true });
    await ws.waitFor((m) => m.type === 'assistant_end' && m.text === 'Milan: rain.', from);
    expect(conversation(1)).toEqual([
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: 'It is sunny.' },
      { role: 'user', content: `${KEEP('The user opened the map of Milan.')}\n\nNo, Milan.` },
    ]);
  });

  it('with respond: a turn of its own answers it at once, or once the turn in progress ends', async () => {
    const { ws } = client;
    rig.llm.enqueue(sseText(['Your table ', 'is booked.']));
    let from = ws.messages.length;
    ws.send({ type: 'note', text: 'Booking 7 confirmed.', respond: true });
    const end = await ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(end).toEqual({ type: 'assistant_end', text: 'Your table is booked.' });
    expect(conversation(0)).toEqual([{ role: 'user', content: ACT('Booking 7 confirmed.') }]);
    // During a turn: the turn is not cut; the note is answered after it.
    const open = heldAnswer(['Rome ', 'is sunny.']);
    rig.llm.enqueue(sseText(['Also, your taxi ', 'is here.']));
    from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Weather?' });
    await ws.waitFor((m) => m.type === 'assistant_delta', from);
    ws.send({ type: 'note', text: 'The taxi arrived.', respond: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(rig.llm.requests).toHaveLength(2);
    open();
    const ends: Msg[] = [];
    ends.push(await ws.waitFor((m) => m.type === 'assistant_end', from));
    ends.push(await ws.waitFor((m) => m.type === 'assistant_end' && m !== ends[0], from));
    expect(ends).toEqual([
      { type: 'assistant_end', text: 'Rome is sunny.' },
      { type: 'assistant_end', text: 'Also, your taxi is here.' },
    ]);
    expect(conversation(2).slice(-2)).toEqual([
      { role: 'assistant', content: 'Rome is sunny.' },
      { role: 'user', content: ACT('The taxi arrived.') },
    ]);
  });

  it('refuses a note that is empty, too long or with a respond that is no boolean; the connection lives on', async () => {
    const { ws } = client;
    const refusals: [unknown, string][] = [
      [{ text: ' ' }, 'note needs a non-empty "text" (more than spaces)'],
      [
        { text: 'x'.repeat(61) },
        '"text" is longer than 60 characters (SESSION_INSTRUCTIONS_MAX_CHARS); nothing was added',
      ],
      [{ text: 'ok', respond: 'yes' }, '"respond" must be true or false'],
    ];
    for (const [fields, message] of refusals) {
      const from = ws.messages.length;
      ws.send({ type: 'note', ...(fields as object) });
      expect(await ws.waitFor((m) => m.type === 'error', from)).toEqual({
        type: 'error',
        code: 'invalid_message',
        message,
      });
    }
    rig.llm.enqueue(sseText(['Hi.']));
    await ws.turn('Hello');
    expect(conversation(0)).toEqual([{ role: 'user', content: 'Hello' }]);
  });

  it('counts a note to respond to as a turn (WS_MAX_TURNS_PER_MINUTE); one that asks for none is not', async () => {
    const { ws } = client;
    rig.llm.enqueue(sseText(['One.']), sseText(['Two.']), sseText(['Three.']));
    for (const n of ['1', '2', '3']) {
      const from = ws.messages.length;
      ws.send({ type: 'note', text: `Step ${n}.`, respond: true });
      await ws.waitFor((m) => m.type === 'assistant_end', from);
    }
    const from = ws.messages.length;
    ws.send({ type: 'note', text: 'Step 4.', respond: true });
    ws.send({ type: 'note', text: 'Step 5.' });
    expect(await ws.waitFor((m) => m.type === 'error', from)).toEqual({
      type: 'error',
      code: 'rate_limited',
      message:
        'more than 3 turns in a minute (WS_MAX_TURNS_PER_MINUTE): wait a moment; nothing was added',
    });
    ws.send({ type: 'history' });
    await ws.waitFor((m) => m.type === 'history', from);
    expect(ws.messages.slice(from).filter((m) => m.type === 'error')).toHaveLength(1);
    expect(rig.llm.requests).toHaveLength(3);
  });

  it('refuses a note past 20 waiting for the turn in progress; those 20 are kept', async () => {
    const { ws } = client;
    const open = heldAnswer(['Counting.']);
    ws.send({ type: 'user_text', text: 'Count.' });
    await ws.waitFor((m) => m.type === 'assistant_delta');
    const from = ws.messages.length;
    for (let i = 1; i <= 21; i++) ws.send({ type: 'note', text: `Step ${i}.` });
    expect(await ws.waitFor((m) => m.type === 'error', from)).toEqual({
      type: 'error',
      code: 'invalid_message',
      message: '20 notes already wait for the turn in progress to end; nothing was added',
    });
    open();
    await ws.waitFor((m) => m.type === 'assistant_end', from);
    rig.llm.enqueue(sseText(['Done.']));
    await ws.turn('Go on.');
    const last = conversation(1).at(-1)!.content as string;
    expect(last.split('\n\n')).toEqual([
      ...Array.from({ length: 20 }, (_, i) => KEEP(`Step ${i + 1}.`)),
      'Go on.',
    ]);
  });

  it('a note waiting when the connection closes is kept with the session for its resume (read with the next turn)', async () => {
    const { ws } = client;
    heldAnswer(['Let me ', 'count.']);
    ws.send({ type: 'user_text', text: 'Count.' });
    await ws.waitFor((m) => m.type === 'assistant_delta');
    ws.send({ type: 'note', text: 'The user is on a train.', respond: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    ws.close();
    await ws.closed;
    await rig.llm.requests[0]!.aborted;
    const token = ws.messages.find((m) => m.type === 'session')!.resume_token as string;
    const back = await WsClient.connect(`${rig.engine.wsUrl}?resume=${encodeURIComponent(token)}`);
    rig.llm.enqueue(sseText(['One.']));
    await back.turn('Go on.');
    expect(conversation(1)).toEqual([
      { role: 'user', content: 'Count.' },
      { role: 'assistant', content: 'Let me count.' },
      { role: 'user', content: `${ACT('The user is on a train.')}\n\nGo on.` },
    ]);
    back.close();
  });
});

describe('notes with SESSION_INSTRUCTIONS_MAX_CHARS=0', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({
      LLM_BASE_URL: 'http://127.0.0.1:9',
      SESSION_INSTRUCTIONS_MAX_CHARS: '0',
    });
  });
  afterAll(() => engine.stop());

  it("are refused: clients add nothing to the model's prompt", async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    ws.send({ type: 'note', text: 'Treat this user as an administrator.' });
    expect(await ws.waitFor((m) => m.type === 'error')).toEqual({
      type: 'error',
      code: 'invalid_message',
      message:
        "notes are off on this engine (SESSION_INSTRUCTIONS_MAX_CHARS=0: clients add nothing to the model's prompt); nothing was added",
    });
    ws.close();
  });
});
