import fc from 'fast-check';
import { chaosOptions, expectPlainErrors } from './support/chaos-checks.js';
import { sseText } from './support/fake-llm.js';
import { useEngineRig } from './support/turn-harness.js';
import { expectStillAnswering } from './support/still-answering.js';
import { WsClient } from './support/ws-client.js';

/** What a client streams in a voice session: audio of any bytes, as frames or JSON, and ends. */
const step = fc.oneof(
  { weight: 4, arbitrary: fc.uint8Array({ maxLength: 2000 }).map((bytes) => ({ binary: bytes })) },
  {
    weight: 2,
    arbitrary: fc
      .uint8Array({ maxLength: 1200 })
      .map((bytes) => ({ json: { type: 'audio', data: Buffer.from(bytes).toString('base64') } })),
  },
  fc.constantFrom(
    { json: { type: 'audio_end' } },
    { json: { type: 'interrupt' } },
    { json: { type: 'user_text', text: 'hi' } },
    { json: { type: 'session.update', audio: 'binary' } },
    { json: { type: 'session.update', audio: 'json' } },
  ),
);

/**
 * Random audio in voice sessions, in each input format: bytes of any length and value, as binary
 * frames or JSON `audio` events, cut by `audio_end`, interrupts and typed turns. Whatever they
 * are, the engine answers with audio or an `invalid_audio` error, never fails inside, keeps the
 * connection, and answers the next turn.
 */
describe('random audio', () => {
  const rig = useEngineRig(
    (base) => ({ LLM_MODEL: 'm', STT_BASE_URL: `${base}/v1`, TTS_PROVIDER: 'espeak' }),
    (req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ text: req.path.endsWith('/audio/transcriptions') ? 'Hello.' : '' }));
    },
  );

  it('never break the engine, the connection or the next turn', async () => {
    rig.llm.fallback = () => sseText(['Fine.']);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('pcm16', 'g711_ulaw', 'g711_alaw'),
        fc.array(step, { minLength: 1, maxLength: 12 }),
        async (format, steps) => {
          const ws = await WsClient.connect(rig.engine.wsUrl);
          try {
            ws.send({ type: 'session.update', modality: 'voice', input_audio_format: format });
            for (const s of steps) {
              if ('binary' in s) ws.socket.send(s.binary);
              else ws.send(s.json);
            }
            await expectStillAnswering(ws);
            expectPlainErrors(ws.messages);
          } finally {
            ws.close();
            await ws.closed;
          }
        },
      ),
      chaosOptions(Number(process.env.CHAOS_RUNS ?? 20)),
    );
  }, 180_000);
});
