import { RecordingServer } from './support/recording-server.js';
import { sseText } from './support/fake-llm.js';
import { writeToolsFile } from './support/tools-file.js';
import { xmlCall } from './support/turn-harness.js';
import { useVoiceRig } from './support/speech-server.js';
import { voiceSession } from './support/ws-client.js';

const BILLING = 'You are the billing assistant: invoices, payments and refunds only.';

/** In a voice session, the assistant handed to speaks with a voice of its own. */
describe('a handoff to an assistant with a voice of its own', () => {
  const tools = new RecordingServer();
  let toolsBase = '';
  beforeAll(async () => {
    toolsBase = await tools.start();
    // A slow backend: the caller waits for it.
    tools.respond((_req, res) => void setTimeout(() => res.end('sole'), 400));
  });
  afterAll(() => tools.stop());
  const rig = useVoiceRig(() => ({
    SPEECH_TOOL_WAIT_MS: '100',
    LLM_TOOLS_FILE: writeToolsFile([
      { name: 'meteo', url: `${toolsBase}/meteo`, method: 'GET' },
      {
        name: 'orders',
        url: `${toolsBase}/orders`,
        method: 'GET',
        wait_phrase: { en: 'Let me look up your order.', it: 'Cerco il suo ordine.' },
      },
      { type: 'handoff', name: 'to_italian_desk', language: 'it' },
      {
        type: 'handoff',
        name: 'to_billing',
        agent: 'billing',
        voice: 'nova',
        instructions: BILLING,
      },
      { type: 'handoff', name: 'to_spanish_desk', language: 'es', instructions: 'Habla español.' },
    ]),
  }));
  it("says the words before the handoff in the session's voice, the rest in the new one", async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    rig.llm.enqueue(
      sseText(['Let me get billing for you.', xmlCall('to_billing', {})]),
      sseText(['Billing here. ', 'How can I help?']),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'I have a billing question.' });
    await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    const voices = rig.speech.requests
      .filter((r) => r.path === '/audio/speech')
      .map((r) => JSON.parse(r.body) as { input: string; voice: string })
      .map(({ input, voice }) => [input, voice]);
    expect(voices).toEqual([
      ['Let me get billing for you.', 'alloy'],
      ['Billing here.', 'nova'],
      ['How can I help?', 'nova'],
    ]);
    ws.close();
  });

  it('goes on in the language of an assistant that has one: its words heard and the clock told in it', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    rig.llm.enqueue(
      sseText([xmlCall('to_spanish_desk', {})]),
      sseText(['¿En qué puedo ayudarle?']),
      sseText(['Claro.']),
    );
    const turn = await ws.turn('¿Habla español?');
    expect(turn.find((m) => m.type === 'handoff')).toEqual({
      type: 'handoff',
      agent: 'spanish desk',
      language: 'es',
    });
    expect(rig.llm.requests[1]!.body.messages[0].content).toMatch(/\n\nHabla español\.\n\nHoy es /);
    // The caller's next words are transcribed as Spanish.
    const from = ws.messages.length;
    ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
    ws.send({ type: 'audio_end' });
    await ws.waitFor((m) => m.type === 'transcript', from, 10_000);
    const upload = rig.speech.requests.find((r) => r.path === '/audio/transcriptions')!;
    expect(upload.body).toMatch(/name="language"\r\n\r\nes\r\n/);
    ws.close();
  });

  it('says the wait phrases in the language of the assistant handed to, in the same turn', async () => {
    for (const [tool, phrase] of [
      ['meteo', 'Un momento.'],
      ['orders', 'Cerco il suo ordine.'],
    ]) {
      const ws = await voiceSession(rig.engine.wsUrl, { language: 'en' });
      rig.speech.requests.length = 0;
      rig.llm.enqueue(
        sseText([xmlCall('to_italian_desk', {})]),
        sseText([xmlCall(tool!, {})]),
        sseText(['Ecco.']),
      );
      const from = ws.messages.length;
      ws.send({ type: 'user_text', text: 'Parla italiano?' });
      await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
      expect(rig.speech.inputs()).toEqual([phrase, 'Ecco.']);
      ws.close();
    }
  });
});
