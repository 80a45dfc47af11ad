import fc from 'fast-check';
import { chaosOptions, expectPlainErrors } from './support/chaos-checks.js';
import { sseText } from './support/fake-llm.js';
import { useEngineRig } from './support/turn-harness.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { expectStillAnswering } from './support/still-answering.js';
import { WsClient } from './support/ws-client.js';
import { clientFrame as frame } from './support/client-frames.js';

/**
 * Random frames of every client message type, with fields the rules take or refuse, on one
 * connection: whatever they are, the engine answers each it refuses with an `error` event, never
 * fails inside (no `internal` error), keeps the connection, and answers the next turn.
 */
describe('random client frames', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([weatherTool(base)]),
    TTS_PROVIDER: 'espeak',
  }));

  it('never break the engine, the connection or the next turn', async () => {
    rig.llm.fallback = () => sseText(['Fine.']);
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 12 }), async (frames) => {
        const ws = await WsClient.connect(rig.engine.wsUrl);
        try {
          for (const f of frames) ws.send(f);
          await expectStillAnswering(ws, [{ type: 'session.update', modality: 'text' }]);
          expectPlainErrors(ws.messages);
        } finally {
          ws.close();
          await ws.closed;
        }
      }),
      chaosOptions(Number(process.env.CHAOS_RUNS ?? 30)),
    );
  }, 120_000);
});
