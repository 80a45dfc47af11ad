import { Engine } from './support/engine.js';
import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { xmlCall } from './support/turn-harness.js';
import { synthesised, until } from './support/waiting.js';
import { voiceSession, WsClient } from './support/ws-client.js';

/** A plain yes or no, said or typed while a call awaits approval, answers it (TOOL_CONFIRM_YES/NO). */
describe('approvals answered by voice or text', () => {
  const llm = new FakeLlm();
  const server = new RecordingServer();
  let engine: Engine;
  /** What the fake speech-to-text server hears. */
  let heard = 'yes';

  async function start(env: Record<string, string> = {}) {
    const base = await server.start();
    server.respond((req, res) => {
      if (req.path === '/audio/transcriptions')
        return void res.end(JSON.stringify({ text: heard }));
      if (req.path === '/audio/speech')
        return void res.writeHead(200, { 'Content-Type': 'audio/pcm' }).end(Buffer.alloc(4800, 7));
      res.end(req.method === 'DELETE' ? 'deleted' : 'ok');
    });
    engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        {
          name: 'delete_item',
          parameters: { type: 'object', properties: { id: { type: 'string' } } },
          url: `${base}/items/{id}`,
          method: 'DELETE',
          confirm: true,
          confirm_prompt: 'Delete item {id} {reason}?',
        },
        // No prompt of its own: a voice session is asked SPEECH_CONFIRM_PHRASE.
        {
          name: 'archive_item',
          parameters: { type: 'object', properties: { id: { type: 'string' } } },
          url: `${base}/archive/{id}`,
          method: 'POST',
          confirm: true,
        },
      ]),
      STT_BASE_URL: base,
      TTS_PROVIDER: 'openai',
      TTS_BASE_URL: base,
      SPEECH_AUDIO_LEAD_MS: '0',
      TOOL_CONFIRM_TIMEOUT_SECS: '10',
      ...env,
    });
  }
  afterEach(async () => {
    await engine?.stop();
    await llm.stop();
    await server.stop();
    llm.reset();
    server.requests.length = 0;
  });

  /** The model asks to delete item 5; resolves once the call awaits approval. */
  async function awaitingApproval(ws: WsClient, id = 'call_del') {
    llm.enqueue(
      sseStructuredCalls([{ id, name: 'delete_item', arguments: { id: '5' } }]),
      sseText(['Done.']),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'delete item 5' });
    await ws.waitFor((m) => m.type === 'tool_confirm', from);
    return from;
  }
  const deletes = () => server.requests.filter((r) => r.method === 'DELETE');
  /** agent_engine_user_asides_total, by kind. */
  const asides = async () => {
    const text = await (await fetch(`${engine.httpUrl}/metrics`)).text();
    const counted = [...text.matchAll(/^agent_engine_user_asides_total\{kind="(\w+)"\} (\d+)$/gm)];
    return Object.fromEntries(counted.map(([, kind, n]) => [kind, Number(n)]));
  };
  const speechInputs = () => synthesised(server);
  const toolMessage = (id: string) =>
    llm.requests[1]!.body.messages.find((m: any) => m.tool_call_id === id)?.content;

  it('runs the call on a typed "yes please" after a "one moment", and starts no turn for either', async () => {
    await start();
    const ws = await voiceSession(engine.wsUrl);
    const from = await awaitingApproval(ws);
    ws.send({ type: 'user_text', text: 'One moment.' });
    expect(await ws.waitFor((m) => m.type === 'tool_held', from)).toEqual({
      type: 'tool_held',
      ids: ['call_del'],
    });
    // Said back to the caller, after the question.
    await until(() => speechInputs().includes('Sure, take your time.'), 'the hold phrase');
    expect(speechInputs()).toEqual(['Delete item 5?', 'Sure, take your time.']);
    ws.send({ type: 'user_text', text: 'Yes, please.' });
    const end = await ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(end).toEqual({ type: 'assistant_end', text: 'Done.' });
    const turn = ws.messages.slice(from).filter((m) => !m.type.startsWith('audio'));
    expect(turn.map((m) => m.type)).toEqual([
      'tool_call',
      'tool_confirm',
      'tool_held',
      'tool_confirmed',
      'tool_result',
      'assistant_delta',
      'assistant_end',
    ]);
    expect(ws.messages.find((m) => m.type === 'tool_confirmed')).toEqual({
      type: 'tool_confirmed',
      id: 'call_del',
      approved: true,
    });
    expect(deletes().map((r) => r.path)).toEqual(['/items/5']);
    expect(llm.requests).toHaveLength(2); // the turn's two rounds: the words asked nothing
    expect(llm.requests[1]!.body.messages.filter((m: any) => m.role === 'user')).toEqual([
      { role: 'user', content: 'delete item 5' },
    ]);
    expect(await asides()).toEqual({ hold: 1 });
    ws.close();
  });

  it('asks again on a spoken "sorry, what was that?", then runs the call on an "OK"', async () => {
    await start();
    const ws = await voiceSession(engine.wsUrl);
    const from = await awaitingApproval(ws);
    const say = (words: string) => {
      heard = words;
      ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
      ws.send({ type: 'audio_end' });
    };
    say('Sorry, what was that?');
    await until(
      () => ws.messages.slice(from).filter((m) => m.type === 'tool_confirm').length === 2,
      'the question asked again',
    );
    const [first, again] = ws.messages.slice(from).filter((m) => m.type === 'tool_confirm');
    expect(again).toEqual(first);
    await until(() => speechInputs().length === 2, 'the question said again');
    expect(speechInputs()).toEqual(['Delete item 5?', 'Delete item 5?']);
    say('OK.');
    const end = await ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(end).toEqual({ type: 'assistant_end', text: 'Done.' });
    expect(ws.messages.find((m) => m.type === 'tool_confirmed')).toMatchObject({ approved: true });
    expect(deletes().map((r) => r.path)).toEqual(['/items/5']);
    expect(llm.requests).toHaveLength(2); // neither was a turn
    expect(await asides()).toEqual({ again: 1 });
    ws.close();
  });

  it("asks SPEECH_CONFIRM_PHRASE, in the session's language, for a call with no prompt", async () => {
    await start();
    const ws = await voiceSession(engine.wsUrl, { language: 'it' });
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_arc', name: 'archive_item', arguments: { id: '5' } }]),
      sseText(['Fatto.']),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: "archivia l'articolo 5" });
    const asked = await ws.waitFor((m) => m.type === 'tool_confirm', from);
    expect(asked.prompt).toBeUndefined(); // the client words its own question
    await until(() => speechInputs().includes('Procedo?'), 'the question');
    heard = 'Sì, grazie.';
    ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
    ws.send({ type: 'audio_end' });
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(ws.messages.find((m) => m.type === 'tool_confirmed')).toMatchObject({ approved: true });
    expect(server.requests.filter((r) => r.path === '/archive/5')).toHaveLength(1);
    ws.close();
  });

  it('declines on a spoken "no thanks": the utterance does not barge in, the model is told', async () => {
    await start();
    const ws = await WsClient.connect(engine.wsUrl);
    const from = await awaitingApproval(ws);
    heard = 'No thanks.';
    ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
    ws.send({ type: 'audio_end' });
    const end = await ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(end).toEqual({ type: 'assistant_end', text: 'Done.' });
    expect(ws.messages.slice(from).find((m) => m.type === 'transcript')).toEqual({
      type: 'transcript',
      text: 'No thanks.',
    });
    expect(ws.messages.find((m) => m.type === 'tool_confirmed')).toMatchObject({
      approved: false,
    });
    expect(toolMessage('call_del')).toBe('Error: the user declined this call');
    expect(deletes()).toHaveLength(0);
    ws.close();
  });

  it('takes anything else as a new turn, which cancels the waiting call', async () => {
    await start();
    const ws = await WsClient.connect(engine.wsUrl);
    const from = await awaitingApproval(ws);
    llm.reset();
    llm.enqueue(sseText(['Tomorrow it is.']));
    heard = 'Yes, but do it tomorrow';
    ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
    ws.send({ type: 'audio_end' });
    await ws.waitFor((m) => m.type === 'assistant_end' && m.interrupted === true, from);
    await ws.waitFor((m) => m.type === 'assistant_end' && m.text === 'Tomorrow it is.', from);
    expect(llm.requests[0]!.body.messages.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'call_del', content: 'Error: cancelled' },
      { role: 'user', content: 'Yes, but do it tomorrow' },
    ]);
    expect(ws.messages.some((m) => m.type === 'tool_confirmed')).toBe(false);
    expect(deletes()).toHaveLength(0);
    ws.close();
  });

  it('with TOOL_CONFIRM_YES and TOOL_CONFIRM_NO empty, a "yes" is a new turn as before', async () => {
    await start({ TOOL_CONFIRM_YES: '', TOOL_CONFIRM_NO: '' });
    const ws = await WsClient.connect(engine.wsUrl);
    const from = await awaitingApproval(ws);
    llm.reset();
    llm.enqueue(sseText(['Yes to what?']));
    ws.send({ type: 'user_text', text: 'yes' });
    await ws.waitFor((m) => m.type === 'assistant_end' && m.text === 'Yes to what?', from);
    expect(ws.messages.slice(from).filter((m) => m.type === 'assistant_end')).toEqual([
      { type: 'assistant_end', text: '', interrupted: true },
      { type: 'assistant_end', text: 'Yes to what?' },
    ]);
    expect(deletes()).toHaveLength(0);
    ws.close();
  });

  it('asks the question of confirm_prompt aloud in a voice session, after the text so far', async () => {
    await start();
    const ws = await voiceSession(engine.wsUrl);
    llm.enqueue(
      sseText(['I will delete it. ', xmlCall('delete_item', { id: '5' })]),
      sseText(['Done.']),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'delete item 5' });
    expect(await ws.waitFor((m) => m.type === 'tool_confirm', from)).toMatchObject({
      name: 'delete_item',
      prompt: 'Delete item 5?',
    });
    await until(() => speechInputs().includes('Delete item 5?'), 'speech');
    // (Both are synthesised at once, so they may reach the speech server in either order.)
    expect(speechInputs().sort()).toEqual(['Delete item 5?', 'I will delete it.']);
    heard = 'Yes.';
    ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
    ws.send({ type: 'audio_end' });
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    expect(deletes().map((r) => r.path)).toEqual(['/items/5']);
    // The question is not the model's: the history holds the model's own text only.
    const assistant = llm.requests[1]!.body.messages.find((m: any) => m.role === 'assistant');
    expect(assistant.content).toBe('I will delete it. ');
    ws.close();
  });

  it('asks the calls of one message one at a time, each answer for the question just asked', async () => {
    await start();
    const ws = await voiceSession(engine.wsUrl);
    llm.enqueue(
      sseStructuredCalls([
        { id: 'call_a', name: 'delete_item', arguments: { id: '5' } },
        { id: 'call_b', name: 'delete_item', arguments: { id: '6' } },
      ]),
      sseText(['Done.']),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'delete items 5 and 6' });
    await ws.waitFor((m) => m.type === 'tool_confirm', from);
    await until(() => speechInputs().includes('Delete item 5?'), 'the first question');
    const say = (text: string) => {
      heard = text;
      ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
      ws.send({ type: 'audio_end' });
    };
    say('Yes.');
    const second = await ws.waitFor((m) => m.type === 'tool_confirm' && m.id === 'call_b', from);
    expect(second).toMatchObject({ prompt: 'Delete item 6?' });
    await until(() => speechInputs().includes('Delete item 6?'), 'the second question');
    say('No.');
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    const turn = ws.messages.slice(from).filter((m) => m.type.startsWith('tool_confirm'));
    expect(turn).toEqual([
      expect.objectContaining({ type: 'tool_confirm', id: 'call_a' }),
      { type: 'tool_confirmed', id: 'call_a', approved: true },
      expect.objectContaining({ type: 'tool_confirm', id: 'call_b' }),
      { type: 'tool_confirmed', id: 'call_b', approved: false },
    ]);
    expect(deletes().map((r) => r.path)).toEqual(['/items/5']);
    expect(toolMessage('call_a')).toBe('deleted');
    expect(toolMessage('call_b')).toBe('Error: the user declined this call');
    ws.close();
  });
});
