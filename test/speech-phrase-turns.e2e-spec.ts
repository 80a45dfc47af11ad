import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { useVoiceRig } from './support/speech-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { voiceSession, type WsClient } from './support/ws-client.js';

/**
 * A phrase setting given several phrases (SPEECH_TOOL_WAIT_PHRASE as a list): a caller kept
 * waiting again hears other words, not "One moment." each time.
 */
describe('phrases said in turn', () => {
  const service = new RecordingServer();
  let base = '';
  /** How long the tools take: past SPEECH_TOOL_WAIT_MS, each call gets its wait phrase. */
  let toolMs = 400;
  beforeAll(async () => {
    base = await service.start();
    service.respond((_req, res) => void setTimeout(() => res.end('found'), toolMs));
  });
  beforeEach(() => (toolMs = 400));
  afterAll(() => service.stop());
  const rig = useVoiceRig(() => ({
    LLM_TOOLS_FILE: writeToolsFile([
      { name: 'lookup', url: `${base}/lookup`, method: 'GET' },
      {
        name: 'orders',
        url: `${base}/orders`,
        method: 'GET',
        wait_phrase: { en: ['Let me find your order.', 'Checking your order.'] },
      },
      {
        type: 'handoff',
        name: 'to_billing',
        agent: 'billing',
        phrases: { wait: 'Let me check your account.' },
      },
    ]),
    SPEECH_TOOL_WAIT_MS: '100',
    SPEECH_TOOL_STILL_MS: '1000',
    SPEECH_TOOL_STILL_PHRASE: '["Still on it.", "Nearly there."]',
    SPEECH_TOOL_WAIT_PHRASE: '{"en":["One moment.","Let me check."],"it":"Un momento."}',
  }));

  /** What was said but the answers: the phrases. */
  const waits = () => rig.speech.inputs().filter((text) => text !== 'Found it.');
  /** `ws`'s settings changed by `fields`: its `session.updated`. */
  async function updating(ws: WsClient, fields: Record<string, unknown>) {
    const from = ws.messages.length;
    ws.send({ type: 'session.update', ...fields });
    return ws.waitFor((m) => m.type === 'session.updated', from);
  }

  let calls = 0;
  /** One turn of `ws` whose model calls `tool`, then says "Found it.", heard to its end. */
  async function lookingUp(ws: WsClient, tool = 'lookup') {
    calls += 1;
    rig.llm.enqueue(
      sseStructuredCalls([{ id: `call_${calls}`, name: tool, arguments: {} }]),
      sseText(['Found it.']),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Where is my order?' });
    await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
  }

  it('gives a session the next wait phrase each time, and another session the first', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    for (let i = 0; i < 3; i++) await lookingUp(ws);
    const other = await voiceSession(rig.engine.wsUrl);
    await lookingUp(other);
    expect(waits()).toEqual(['One moment.', 'Let me check.', 'One moment.', 'One moment.']);
    ws.close();
    other.close();
  });

  it("says a tool's own wait phrases in turn too", async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    for (let i = 0; i < 3; i++) await lookingUp(ws, 'orders');
    expect(waits()).toEqual([
      'Let me find your order.',
      'Checking your order.',
      'Let me find your order.',
    ]);
    ws.close();
  });

  it('says the still phrases in turn from the first, turn after turn', async () => {
    toolMs = 2300;
    const ws = await voiceSession(rig.engine.wsUrl);
    await lookingUp(ws);
    await lookingUp(ws);
    const stills = rig.speech.inputs().filter((text) => /Still|Nearly/.test(text));
    // One every second while the call runs: about two a turn, whatever the timing, in turn.
    expect(stills.length).toBeGreaterThanOrEqual(3);
    stills.forEach((text, i) => expect(text).toBe(i % 2 === 0 ? 'Still on it.' : 'Nearly there.'));
    ws.close();
  });

  it("says a session's own phrases (session.update's phrases), the engine's again after null", async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    const updated = await updating(ws, { phrases: { wait: ['Just a sec.', 'Bear with me.'] } });
    expect(updated.settings.phrases).toEqual({ wait: { '*': ['Just a sec.', 'Bear with me.'] } });
    await lookingUp(ws);
    await lookingUp(ws);
    // A phrase the engine has no name for is refused, and the session lives on.
    const from = ws.messages.length;
    ws.send({ type: 'session.update', phrases: { waiting: 'Hm.' } });
    expect(await ws.waitFor((m) => m.type === 'error', from)).toMatchObject({
      message: expect.stringMatching(
        /unknown phrase "waiting" in "phrases": the phrases are wait,/,
      ),
    });
    const again = await updating(ws, { phrases: null });
    expect(again.settings.phrases).toBeUndefined();
    await lookingUp(ws);
    expect(waits()).toEqual(['Just a sec.', 'Bear with me.', 'One moment.']);
    ws.close();
  });

  it("says an assistant's own phrases once the session is its, the session's own first", async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    await updating(ws, { agent: 'billing' });
    await lookingUp(ws);
    await updating(ws, { phrases: { wait: 'Hang on.' } });
    await lookingUp(ws);
    expect(waits()).toEqual(['Let me check your account.', 'Hang on.']);
    ws.close();
  });
});
