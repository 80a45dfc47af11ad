import { sseText } from './support/fake-llm.js';
import { SPEECH, useVoiceRig } from './support/speech-server.js';
import { voiceSession, type WsClient } from './support/ws-client.js';

/** Says the fixture's sentence, ended by the client; resolves to its `transcript` event. */
async function utterance(ws: WsClient) {
  const from = ws.messages.length;
  ws.socket.send(SPEECH, { binary: true });
  ws.send({ type: 'audio_end' });
  return { from, transcript: await ws.waitFor((m) => m.type === 'transcript', from, 10_000) };
}

/**
 * STT_DETECT_LANGUAGE: the transcription server detects the language the caller speaks, and the
 * session goes on in it — a caller who answers an English greeting in Spanish is answered in
 * Spanish, with no "press 2".
 */
describe('the language the caller speaks, detected (STT_DETECT_LANGUAGE)', () => {
  const rig = useVoiceRig({ STT_DETECT_LANGUAGE: 'true', LLM_CLOCK: 'date' });
  const { llm, speech } = rig;
  afterEach(() => (speech.heardIn = undefined));

  it('goes on in the language the caller speaks, told to the client', async () => {
    const ws = await voiceSession(rig.engine.wsUrl, { language: 'en' });
    llm.enqueue(sseText(['Hace sol en Madrid.']));
    speech.transcript = '¿Qué tiempo hace en Madrid?';
    speech.heardIn = 'spanish';
    const { from, transcript } = await utterance(ws);
    expect(transcript).toEqual({ type: 'transcript', text: speech.transcript, language: 'es' });
    const updated = await ws.waitFor((m) => m.type === 'session.updated', from);
    expect(updated.settings.language).toBe('es');
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    // The server was given no language to hear, and asked to tell it.
    const upload = speech.requests.find((r) => r.path === '/audio/transcriptions')!;
    expect(upload.body).not.toContain('name="language"');
    expect(upload.body).toMatch(/name="response_format"\r\n\r\nverbose_json\r\n/);
    // The model is told the date in Spanish from this turn on.
    expect(llm.requests[0]!.body.messages[0].content).toMatch(/\n\nHoy es /);
    ws.close();
  });

  it('keeps the language for a word or two in another one ("Vale.")', async () => {
    const ws = await voiceSession(rig.engine.wsUrl, { language: 'en' });
    llm.enqueue(sseText(['Great.']));
    speech.transcript = 'Vale, gracias.';
    speech.heardIn = 'spanish';
    const { from, transcript } = await utterance(ws);
    expect(transcript).toMatchObject({ language: 'es' });
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(ws.messages.slice(from).some((m) => m.type === 'session.updated')).toBe(false);
    expect(llm.requests[0]!.body.messages[0].content).toMatch(/\n\nToday is /);
    ws.close();
  });
});

/** STT_DETECT_LANGUAGE=en,es: a line that serves English and Spanish follows only those. */
describe('the languages a line follows (STT_DETECT_LANGUAGE=en,es)', () => {
  const rig = useVoiceRig({ STT_DETECT_LANGUAGE: 'en,es' });

  it('follows the languages it names, not another one the server thought it heard', async () => {
    const ws = await voiceSession(rig.engine.wsUrl, { language: 'en' });
    rig.llm.fallback = () => sseText(['Sí.']);
    rig.speech.transcript = 'Quiero reservar una mesa.';
    rig.speech.heardIn = 'portuguese';
    let { from } = await utterance(ws);
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(ws.messages.slice(from).some((m) => m.type === 'session.updated')).toBe(false);
    rig.speech.heardIn = 'spanish';
    ({ from } = await utterance(ws));
    const updated = await ws.waitFor((m) => m.type === 'session.updated', from);
    expect(updated.settings.language).toBe('es');
    ws.close();
  });
});
