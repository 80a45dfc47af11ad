import { collectGarbage } from './support/gc.js';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { openAiSpeech } from './support/engine.js';
import { writeToolsFile } from './support/tools-file.js';
import { toolRead, useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { voiceSession } from './support/ws-client.js';

/**
 * Servers that take a request and never answer it whole, while the engine's memory is collected:
 * the tool's timeout and TTS_TIMEOUT_SECS still end the wait (on Node 20 a collection took the
 * timers of `AbortSignal.any`'s timeouts away, and such a request hung: see
 * src/common/timeout-signal.ts).
 */
describe('timeouts through a garbage collection', () => {
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_TOOL_RETRIES: '0',
      LLM_TOOLS_FILE: writeToolsFile([
        { name: 'stalled', url: `${base}/stalled`, method: 'GET', timeout_secs: 0.3 },
      ]),
      ...openAiSpeech(base),
      TTS_TIMEOUT_SECS: '0.3',
    }),
    // The tool's answer begins and stalls; the TTS server never answers.
    (req, res) => {
      if (req.path === '/stalled') res.writeHead(200).write('the start of an answer');
    },
  );
  const client = useClientPerTest(rig);

  it("ends a tool's request at its timeout, an answer begun included", async () => {
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'stalled', arguments: {} }]),
      sseText(['ok']),
    );
    const turn = client.ws.turn('go on', 10_000);
    setTimeout(collectGarbage, 100);
    await turn;
    const read = rig.llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    expect(read.map((m: any) => m.content)).toEqual([
      'Error: tool request failed: timed out after 0.3s',
    ]);
    expect(toolRead(rig.llm)).toBe('Error: tool request failed: timed out after 0.3s');
  });

  it('ends a synthesis at TTS_TIMEOUT_SECS', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    rig.llm.enqueue(sseText(['Hello there.']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'hi' });
    setTimeout(collectGarbage, 100);
    expect(await ws.waitFor((m) => m.type === 'error', from, 10_000)).toEqual({
      type: 'error',
      code: 'tts_failed',
      message:
        'speech synthesis failed: the TTS server did not answer within TTS_TIMEOUT_SECS (0.3s)',
    });
    await ws.waitFor((m) => m.type === 'audio_end', from);
    ws.close();
  });
});
