import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { useVoiceRig } from './support/speech-server.js';
import { kinds, useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { firstHeld, reportTool, weatherTool, writeToolsFile } from './support/tools-file.js';
import { voiceSession, WsClient, type Msg } from './support/ws-client.js';

/**
 * `"background": true`: the turn that calls the tool goes on without its result, which a turn of
 * its own tells once it comes; the call outlives barge-ins, not the connection.
 */
describe('tools that run in the background', () => {
  /** The report requests the tool server holds, answered by the test. */
  const held: { res: ServerResponse; closed: Promise<void> }[] = [];
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([reportTool(base), weatherTool(base)]),
      SESSION_RESUME_SECS: '1',
    }),
    (req, res) => {
      if (!req.path.startsWith('/report')) return void res.end('sunny');
      held.push({ res, closed: new Promise((resolve) => res.once('close', resolve)) });
    },
  );
  const client = useClientPerTest(rig);
  beforeEach(() => (held.length = 0));

  const report = { id: 'call_r', name: 'make_report', arguments: { id: '7' } };
  const untilHeld = () => firstHeld(held);
  const RESULT_MESSAGE =
    '[Not said by the user: the result of make_report (call call_r), which ran in the background. Tell the user what it means for them.]\nreport 7: 12 pages';

  it('lets its turn end without the result, then tells the result in a turn of its own', async () => {
    rig.llm.enqueue(
      sseStructuredCalls([report]),
      sseText(['I have started ', 'your report.']),
      sseText(['Your report ', 'is ready: 12 pages.']),
    );
    const turn = await client.ws.turn('make report 7');
    expect(kinds(turn)).toEqual(['tool_call', 'tool_result', 'assistant_delta', 'assistant_end']);
    expect(turn[1]).toEqual({
      type: 'tool_result',
      id: 'call_r',
      name: 'make_report',
      ok: true,
      ms: 0,
      background: 'started',
    });
    expect(turn.at(-1)).toEqual({ type: 'assistant_end', text: 'I have started your report.' });
    const call = await untilHeld();
    expect(rig.tools.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /report/7']);
    // The model read that the call is under way, as the call's result.
    expect(rig.llm.requests[1]!.body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_r',
      content:
        'Started: make_report runs in the background, and its result will come in a later message. Tell the user it is under way; do not call make_report again for this.',
    });

    const from = client.ws.messages.length;
    call.res.end('report 7: 12 pages');
    const end = await client.ws.waitFor((m) => m.type === 'assistant_end', from);
    const told = client.ws.messages.slice(from, client.ws.messages.indexOf(end) + 1);
    expect(told[0]).toMatchObject({
      type: 'tool_result',
      id: 'call_r',
      name: 'make_report',
      ok: true,
      background: 'done',
    });
    expect(told[0]!.ms).toBeGreaterThanOrEqual(0);
    expect(end).toEqual({ type: 'assistant_end', text: 'Your report is ready: 12 pages.' });
    const messages = rig.llm.requests[2]!.body.messages;
    expect(messages.slice(-3)).toEqual([
      { role: 'tool', tool_call_id: 'call_r', content: expect.stringMatching(/^Started: /) },
      { role: 'assistant', content: 'I have started your report.' },
      { role: 'user', content: RESULT_MESSAGE },
    ]);
    expect(rig.llm.requests).toHaveLength(3);
  });

  it('keeps running through a barge-in, and tells its result after the turn in progress', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    rig.llm.enqueue(
      sseStructuredCalls([report]),
      sseText(['Started.']),
      sseText(['Cut ', 'short']),
      { ...sseText(['The weather ', 'is fine.']), gate },
      sseText(['The report is ready.']),
    );
    await client.ws.turn('make report 7');
    const call = await untilHeld();
    // A turn cut short by an interrupt, then one in progress when the result comes.
    let from = client.ws.messages.length;
    client.ws.send({ type: 'user_text', text: 'talk' });
    await client.ws.waitFor((m) => m.type === 'assistant_delta', from);
    client.ws.send({ type: 'interrupt' });
    await client.ws.waitFor((m) => m.type === 'assistant_end', from);
    from = client.ws.messages.length;
    client.ws.send({ type: 'user_text', text: 'and the weather?' });
    await client.ws.waitFor((m) => m.type === 'assistant_delta', from);
    call.res.end('report 7: 12 pages');
    await client.ws.waitFor((m) => m.type === 'tool_result' && m.background === 'done', from);
    await new Promise((r) => setTimeout(r, 200));
    expect(rig.llm.requests).toHaveLength(4); // the result waits for the turn in progress
    release();
    const weatherEnd = await client.ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(weatherEnd).toEqual({ type: 'assistant_end', text: 'The weather is fine.' });
    const next = client.ws.messages.indexOf(weatherEnd) + 1;
    const told = await client.ws.waitFor((m) => m.type === 'assistant_end', next);
    expect(told).toEqual({ type: 'assistant_end', text: 'The report is ready.' });
    expect(rig.llm.requests[4]!.body.messages.at(-1)).toEqual({
      role: 'user',
      content: RESULT_MESSAGE,
    });
    const types = (msgs: Msg[]) => msgs.map((m) => m.type);
    expect(types(client.ws.messages.slice(next)).filter((t) => t === 'tool_result')).toEqual([]);
  });

  it('is aborted once its connection closed and the session was not resumed in time', async () => {
    rig.llm.enqueue(sseStructuredCalls([report]), sseText(['Started.']));
    await client.ws.turn('make report 7');
    const call = await untilHeld();
    client.ws.close();
    const closedAt = performance.now();
    await call.closed;
    // Kept for SESSION_RESUME_SECS (1 s), then dropped unanswered.
    expect(performance.now() - closedAt).toBeGreaterThan(800);
    expect(call.res.writableEnded).toBe(false);
    await new Promise((r) => setTimeout(r, 200));
    expect(rig.llm.requests).toHaveLength(2);
  });

  it('outlives a dropped connection, and is told on the one that resumes the session', async () => {
    rig.llm.enqueue(
      sseStructuredCalls([report]),
      sseText(['Started.']),
      sseText(['Your report ', 'is ready.']),
    );
    await client.ws.turn('make report 7');
    const call = await untilHeld();
    const token = client.ws.messages.find((m) => m.type === 'session')!.resume_token as string;
    client.ws.close();
    await client.ws.closed;
    const resumed = await WsClient.connect(
      `${rig.engine.wsUrl}?resume=${encodeURIComponent(token)}`,
    );
    expect(resumed.messages[0]).toMatchObject({ type: 'session', resumed: true });
    call.res.end('report 7: 12 pages');
    expect(
      await resumed.waitFor((m) => m.type === 'tool_result' && m.background === 'done'),
    ).toMatchObject({ id: 'call_r', ok: true });
    const end = await resumed.waitFor((m) => m.type === 'assistant_end');
    expect(end).toEqual({ type: 'assistant_end', text: 'Your report is ready.' });
    expect(rig.llm.requests[2]!.body.messages.at(-1)).toEqual({
      role: 'user',
      content: RESULT_MESSAGE,
    });
    resumed.close();
  });
});

describe('a result that comes while the caller speaks', () => {
  const tools = new RecordingServer();
  let toolsUrl = '';
  let release!: () => void;
  beforeAll(async () => {
    toolsUrl = await tools.start();
    tools.respond((_req, res) => {
      const answered = new Promise<void>((resolve) => (release = resolve));
      void answered.then(() => res.end('room 12 booked'));
    });
  });
  afterAll(() => tools.stop());
  const rig = useVoiceRig(() => ({
    VAD_SILENCE_MS: '500',
    LLM_TOOLS_FILE: writeToolsFile([
      { name: 'book_room', url: `${toolsUrl}/rooms`, method: 'POST', background: true },
    ]),
  }));
  const { llm } = rig;
  /** A spoken sentence, PCM s16le 16 kHz mono (test/fixtures/audio/make-speech.mjs). */
  const SPEECH = readFileSync('test/fixtures/audio/speech-16k.pcm');
  /** Streams `audio` as a microphone does: 20 ms binary frames. */
  const stream = (ws: WsClient, audio: Buffer) => {
    for (let at = 0; at < audio.length; at += 640)
      ws.socket.send(audio.subarray(at, at + 640), { binary: true });
  };

  it('is not told over the caller: their turn carries it to the model with their words', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_b', name: 'book_room', arguments: {} }]),
      sseText(['I have asked the hotel.']),
      sseText(['Room 12 is yours; and the weather is fine.']),
    );
    const first = await ws.turn('Book me a room.', 10_000);
    await ws.waitFor((m) => m.type === 'audio_end', ws.messages.indexOf(first.at(-1)!), 10_000);
    const from = ws.messages.length;
    stream(ws, SPEECH.subarray(0, SPEECH.length >> 1)); // the caller is still speaking
    await ws.waitFor((m) => m.type === 'speech_started', from, 10_000);
    release();
    await ws.waitFor((m) => m.type === 'tool_result' && m.background === 'done', from);
    await new Promise((r) => setTimeout(r, 500));
    expect(llm.requests).toHaveLength(2); // no turn started over the caller
    stream(ws, Buffer.concat([SPEECH.subarray(SPEECH.length >> 1), Buffer.alloc(1000 * 32)]));
    // (The speech cut the first answer's playback: its `heard` end comes first.)
    const end = await ws.waitFor((m) => m.type === 'assistant_end' && !m.heard, from, 10_000);
    expect(end).toMatchObject({ text: 'Room 12 is yours; and the weather is fine.' });
    expect(llm.requests).toHaveLength(3);
    expect(llm.requests[2]!.body.messages.at(-1)).toEqual({
      role: 'user',
      content:
        '[Not said by the user: the result of book_room (call call_b), which ran in the background. Tell the user what it means for them.]\nroom 12 booked\n\nWhat is the weather like in Paris today?',
    });
    ws.close();
  });
});
