import { sseText } from './support/fake-llm.js';
import { useVoiceRig } from './support/speech-server.js';
import { voiceSession, WsClient } from './support/ws-client.js';

/**
 * `{"type":"say"}`: the agent says a given text (a greeting when a call connects, a goodbye) with
 * no request to the model; the model reads it in the conversation from then on.
 */
describe('say', () => {
  const rig = useVoiceRig();
  const { llm, speech } = rig;

  /** The messages of the model's `index`th request, without the system prompt. */
  const conversation = (index: number) =>
    (llm.requests[index]!.body.messages as { role: string; content: string }[])
      .filter((m) => m.role !== 'system')
      .map((m) => `${m.role}: ${m.content}`);

  it('sends the text as an answer with no request to the model, which reads it from then on', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    let from = ws.messages.length;
    ws.send({ type: 'say', text: 'Hello, this is the front desk.' });
    await ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(ws.messages.slice(from)).toEqual([
      { type: 'assistant_delta', text: 'Hello, this is the front desk.' },
      { type: 'assistant_end', text: 'Hello, this is the front desk.' },
    ]);
    expect(llm.requests).toHaveLength(0);
    llm.enqueue(sseText(['Sunny.']), sseText(['Bye.']));
    await ws.turn('Weather?');
    from = ws.messages.length;
    ws.send({ type: 'say', text: 'Anything else?' });
    await ws.waitFor((m) => m.type === 'assistant_end', from);
    await ws.turn('No.');
    expect(conversation(0)).toEqual([
      'assistant: Hello, this is the front desk.',
      'user: Weather?',
    ]);
    // An answer and a said text in a row go as one assistant message (roles alternate).
    expect(conversation(1).slice(-2)).toEqual(['assistant: Sunny. Anything else?', 'user: No.']);
    from = ws.messages.length;
    ws.send({ type: 'say', text: '  ' });
    expect(await ws.waitFor((m) => m.type === 'error', from)).toMatchObject({
      code: 'invalid_message',
      message: 'say needs a non-empty "text" (more than spaces)',
    });
    ws.close();
  });

  /** Until the client has played the 0.2 s of speech just sent (a message sooner cuts it). */
  const played = () => new Promise((resolve) => setTimeout(resolve, 300));

  it('speaks it in a voice session; cut by a barge-in, only what was heard of it is kept', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    llm.enqueue(sseText(['Sunny.']));
    let from = ws.messages.length;
    ws.send({ type: 'say', text: 'Hello there.' });
    await ws.waitFor((m) => m.type === 'audio_end', from);
    expect(speech.inputs()).toEqual(['Hello there.']);
    await played();
    await ws.turn('Weather?');
    await ws.waitFor((m) => m.type === 'audio_end', ws.messages.length - 1);
    await played();
    speech.seconds = 30; // long enough that no sentence is heard whole before the barge-in
    from = ws.messages.length;
    ws.send({ type: 'say', text: 'Before you go, a word about our offers.' });
    await ws.waitFor((m) => m.type === 'audio', from, 5000);
    ws.socket.send(Buffer.alloc(320), { binary: true });
    expect(
      await ws.waitFor((m) => m.type === 'assistant_end' && m.heard === true, from),
    ).toMatchObject({ text: '', interrupted: true });
    llm.enqueue(sseText(['Bye.']));
    speech.seconds = 0.2;
    await ws.turn('No thanks.');
    // The answer heard whole before it is kept; nothing of the cut text was heard.
    expect(conversation(1)).toEqual([
      'assistant: Hello there.',
      'user: Weather?',
      'assistant: Sunny.',
      'user: No thanks.',
    ]);
    ws.close();
  });
});
