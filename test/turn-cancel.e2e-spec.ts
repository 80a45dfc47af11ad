import { sseText } from './support/fake-llm.js';
import { types, useTurnHarness, xmlCall } from './support/turn-harness.js';
import { until } from './support/waiting.js';

describe('cancellation and protocol errors over /ws', () => {
  const h = useTurnHarness();

  it('interrupts a turn: the LLM request is aborted, assistant_end is interrupted, history keeps what was sent', async () => {
    h.llm.enqueue({
      kind: 'sse',
      pieces: sseText(['Once upon a time']).pieces.slice(0, 2),
      keepOpen: true,
    });
    const from = h.ws.messages.length;
    h.ws.send({ type: 'user_text', text: 'Tell me a story' });
    await h.ws.waitFor((m) => m.type === 'assistant_delta', from);
    h.ws.send({ type: 'interrupt' });
    const end = await h.ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(end).toEqual({ type: 'assistant_end', text: 'Once upon a time', interrupted: true });
    await h.llm.requests[0]!.aborted;
    h.llm.enqueue(sseText(['Ok.']));
    await h.ws.turn('Stop.');
    expect(h.llm.requests[1]!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Tell me a story' },
      { role: 'assistant', content: 'Once upon a time' },
      { role: 'user', content: 'Stop.' },
    ]);
  });

  it('joins, in the next request, a question interrupted before its answer began with the next one', async () => {
    // Roles must alternate for some chat templates (Gemma's, Mistral's): two user messages in a
    // row would have this request, and every later one, refused.
    h.llm.enqueue({ kind: 'hang' }, sseText(['Sunny in Paris.']));
    const from = h.ws.messages.length;
    h.ws.send({ type: 'user_text', text: "What's the weather?" });
    await until(() => h.llm.requests.length === 1, 'the first request');
    h.ws.send({ type: 'interrupt' });
    expect(await h.ws.waitFor((m) => m.type === 'assistant_end', from)).toEqual({
      type: 'assistant_end',
      text: '',
      interrupted: true,
    });
    await h.ws.turn('In Paris.');
    expect(h.llm.requests[1]!.body.messages.slice(1)).toEqual([
      { role: 'user', content: "What's the weather?\n\nIn Paris." },
    ]);
  });

  it('a new user_text cancels the turn in flight, which ends before the new one starts', async () => {
    h.llm.enqueue(
      { kind: 'sse', pieces: sseText(['Long answer']).pieces.slice(0, 2), keepOpen: true },
      sseText(['Short.']),
    );
    const from = h.ws.messages.length;
    h.ws.send({ type: 'user_text', text: 'first' });
    await h.ws.waitFor((m) => m.type === 'assistant_delta', from);
    h.ws.send({ type: 'user_text', text: 'second' });
    await h.ws.waitFor((m) => m.type === 'assistant_end' && !m.interrupted, from);
    expect(types(h.ws.messages.slice(from))).toEqual([
      'assistant_delta',
      'assistant_end',
      'assistant_delta',
      'assistant_end',
    ]);
    expect(h.ws.messages.slice(from)[1]).toMatchObject({ interrupted: true });
    expect(h.llm.requests[0]!.wasAborted).toBe(true);
  });

  it('handles messages in order: of three quick user_texts only the last turn completes', async () => {
    // Every turn streams slowly except the one for "three".
    h.llm.fallback = (body) =>
      body.messages.at(-1).content.endsWith('three')
        ? sseText(['Third.'])
        : { kind: 'sse', pieces: sseText(['Working']).pieces.slice(0, 2), keepOpen: true };
    const from = h.ws.messages.length;
    h.ws.send({ type: 'user_text', text: 'one' });
    await h.ws.waitFor((m) => m.type === 'assistant_delta', from);
    h.ws.send({ type: 'user_text', text: 'two' });
    h.ws.send({ type: 'user_text', text: 'three' });
    const last = await h.ws.waitFor((m) => m.type === 'assistant_end' && !m.interrupted, from);
    expect(last).toEqual({ type: 'assistant_end', text: 'Third.' });
    await new Promise((r) => setTimeout(r, 100));
    const ends = h.ws.messages.slice(from).filter((m) => m.type === 'assistant_end');
    expect(ends.at(-1)).toBe(last);
    expect(ends.filter((m) => !m.interrupted)).toHaveLength(1);
    expect(h.ws.messages.at(-1)).toBe(last);
    const users = h.llm.requests
      .at(-1)!
      .body.messages.filter((m: any) => m.role === 'user')
      .map((m: any) => m.content);
    // 'two', ended before the first word of its answer, is one message with 'three'.
    expect(users.join('\n\n')).toBe('one\n\ntwo\n\nthree');
    for (const request of h.llm.requests.slice(0, -1)) expect(request.wasAborted).toBe(true);
  });

  it('cancels tool calls in flight on interrupt and answers them "Error: cancelled" in history', async () => {
    h.tools.respond(() => undefined);
    h.llm.enqueue(sseText([xmlCall('get_weather', { city: 'Slow' })]));
    const from = h.ws.messages.length;
    h.ws.send({ type: 'user_text', text: 'slow one' });
    const call = await h.ws.waitFor((m) => m.type === 'tool_call', from);
    await new Promise((r) => setTimeout(r, 50));
    h.ws.send({ type: 'interrupt' });
    expect(await h.ws.waitFor((m) => m.type === 'assistant_end', from)).toMatchObject({
      interrupted: true,
    });
    expect(h.ws.messages.slice(from).some((m) => m.type === 'tool_result')).toBe(false);
    h.tools.respond((_req, res) => res.end('ok'));
    h.llm.enqueue(sseText(['Fine.']));
    await h.ws.turn('next');
    expect(h.llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool')).toEqual([
      { role: 'tool', tool_call_id: call.id, content: 'Error: cancelled' },
    ]);
  });

  it('aborts the LLM request when the socket closes', async () => {
    h.llm.enqueue({ kind: 'sse', pieces: sseText(['Hello']).pieces.slice(0, 2), keepOpen: true });
    h.ws.send({ type: 'user_text', text: 'hi' });
    await h.ws.waitFor((m) => m.type === 'assistant_delta');
    h.ws.close();
    await h.llm.requests[0]!.aborted;
    expect(h.llm.requests[0]!.wasAborted).toBe(true);
  });

  it('starts no turn for a user_text whose client left while the turn before it was ending', async () => {
    h.llm.enqueue({ kind: 'sse', pieces: sseText(['Hello']).pieces.slice(0, 2), keepOpen: true });
    h.ws.send({ type: 'user_text', text: 'hi' });
    await h.ws.waitFor((m) => m.type === 'assistant_delta');
    // The second message waits for the first turn to end; the client is gone before it does.
    h.ws.send({ type: 'user_text', text: 'and another thing' });
    h.ws.close();
    await h.llm.requests[0]!.aborted;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.llm.requests).toHaveLength(1);
  });

  it.each([
    ['malformed JSON', '{"type": "user_text", "text": ', /malformed JSON/],
    ['an unknown type', '{"type":"dance"}', /unknown message type "dance"/],
    ['a missing text', '{"type":"user_text"}', /"text"/],
    ['an empty text', '{"type":"user_text","text":""}', /non-empty "text"/],
    // A value of the wrong type is told as such, not as too long.
    [
      'a text that is a number',
      '{"type":"user_text","text":5}',
      /^user_text needs a "text" string$/,
    ],
    ['a ping id that is a number', '{"type":"ping","id":7}', /^"id" must be a string$/],
    ['a JSON array', '[1,2]', /JSON object/],
    [
      'a misspelt setting',
      '{"type":"session.update","langauge":"it"}',
      /^unknown setting "langauge" in session.update: expected modality, tts, voice, language, timezone, audio, vad_silence_ms, vad_unfinished_wait_ms, idle_secs, max_secs, channel, input_audio_format, output_audio_format, instructions, model, tools, client_tools, variables, agent, phrases, timings, tool_mocks; nothing was changed$/,
    ],
  ])('answers %s with an error event and keeps the connection', async (_label, frame, message) => {
    const from = h.ws.messages.length;
    h.ws.send(frame);
    expect(await h.ws.waitFor((m) => m.type === 'error', from)).toEqual({
      type: 'error',
      code: 'invalid_message',
      message: expect.stringMatching(message),
    });
    h.llm.enqueue(sseText(['still here']));
    expect((await h.ws.turn('ping')).at(-1)).toEqual({ type: 'assistant_end', text: 'still here' });
  });

  it('answers ping with pong at once, echoing its id', async () => {
    h.ws.send({ type: 'ping', id: 'rtt-1' });
    expect(await h.ws.waitFor((m) => m.type === 'pong')).toEqual({ type: 'pong', id: 'rtt-1' });
    const from = h.ws.messages.length;
    h.ws.send({ type: 'ping' });
    expect(await h.ws.waitFor((m) => m.type === 'pong', from)).toEqual({ type: 'pong' });
  });

  it('answers odd binary audio, and audio with no speech-to-text configured, with error events', async () => {
    h.ws.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await h.ws.waitFor((m) => m.type === 'error')).toMatchObject({
      code: 'invalid_audio',
      message: expect.stringContaining('16-bit'),
    });
    const from = h.ws.messages.length;
    h.ws.socket.send(Buffer.alloc(3200), { binary: true });
    h.ws.send({ type: 'audio_end' });
    expect(await h.ws.waitFor((m) => m.type === 'error', from)).toMatchObject({
      code: 'stt_unavailable',
      message: expect.stringContaining('STT_BASE_URL'),
    });
    expect(h.ws.socket.readyState).toBe(h.ws.socket.OPEN);
  });

  it('closes with 1009 on a frame over WS_MAX_MESSAGE_BYTES', async () => {
    h.ws.send({ type: 'user_text', text: 'x'.repeat(1024 * 1024 + 10) });
    expect(await h.ws.closed).toBe(1009);
  });
});
