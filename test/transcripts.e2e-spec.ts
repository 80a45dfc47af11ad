import { lastValueFrom, toArray } from 'rxjs';
import type { LlmEvent } from '../src/llm/llm.types.js';
import { llmClient, replay, sseText, TRANSCRIPTS, type Script } from './support/fake-llm.js';
import { rng } from './support/qwen-vectors.js';
import { postTools } from './support/tools-file.js';
import { deltas, MARKUP, useEngineRig } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';

/**
 * The recorded real-server streams through the running engine, cut at random byte positions: a
 * client on /ws sees exactly the calls, the text and the errors that the LLM client decodes from
 * the same bytes (test/llm-client.e2e-spec.ts pins those), with no reasoning and no markup.
 */

/** The answer to any later request: "Done.", streamed or not as asked. */
const done = (body: Record<string, any>): Script =>
  body.stream
    ? sseText(['Done.'])
    : {
        kind: 'json',
        body: {
          choices: [
            { index: 0, message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' },
          ],
        },
      };

describe('recorded streams through the running engine', () => {
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'fake',
    LLM_TOOL_MAX_ITERATIONS: '1',
    LLM_RETRY_BACKOFF_MS: '20',
  }));
  const { llm } = rig;

  /** What the LLM client decodes from the whole transcript. */
  async function decoded(file: string): Promise<LlmEvent[]> {
    llm.reset();
    llm.enqueue(replay(file));
    return lastValueFrom(llmClient(rig.llmUrl).stream({ messages: [], tools: [] }).pipe(toArray()));
  }

  it.each(TRANSCRIPTS)('%s', async (file) => {
    const events = await decoded(file);
    const calls = events.flatMap((e) =>
      e.type === 'tool_call' ? [{ name: e.name, arguments: e.arguments }] : [],
    );
    const text = events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
    const error = events.find((e) => e.type === 'error');
    // A stream cut off before it sent anything is asked again (LLM_RETRIES): the next answer wins.
    const retried = events.length === 1 && error?.message === 'LLM stream closed before [DONE]';
    // The engine offers every tool the stream calls, and a placeholder so tools are active.
    const definitions = [...new Set(['placeholder', ...calls.map((c) => c.name)])].map((name) => ({
      name,
      url: `${rig.toolsUrl}/${name}`,
    }));
    expect((await postTools(rig.engine.httpUrl, definitions)).status).toBe(200);

    const random = rng(file.length * 131);
    for (let run = 0; run < 3; run++) {
      const cuts = Array.from({ length: 1 + Math.floor(random() * 40) }, () =>
        Math.floor(random() * 1e6),
      );
      llm.reset();
      llm.enqueue(replay(file, cuts));
      llm.fallback = done;
      const ws = await WsClient.connect(rig.engine.wsUrl);
      const msgs = await ws.turn('go').finally(() => ws.close());

      expect(
        msgs
          .filter((m) => m.type === 'tool_call')
          .map((m) => ({ name: m.name, arguments: m.arguments })),
      ).toEqual(calls);
      for (const d of deltas(msgs)) expect(d).not.toMatch(MARKUP);
      const end = msgs.at(-1)!;
      expect(end.type).toBe('assistant_end');
      if (retried) {
        expect(msgs.filter((m) => m.type === 'error')).toEqual([]);
        expect(end.text).toBe('Done.');
        expect(llm.requests).toHaveLength(2);
        continue;
      }
      if (error) {
        expect(msgs.filter((m) => m.type === 'error')).toEqual([
          { type: 'error', code: 'llm_failed', message: error.message },
        ]);
        expect(end.text).toBe(text.trim());
        continue;
      }
      // A round with calls is followed by one more ("Done."); an empty stream by the fallback.
      const more = calls.length > 0 || text.trim() === '' ? 'Done.' : '';
      expect(end.text).toBe([text.trim(), more].filter(Boolean).join(' '));
    }
  });
});
