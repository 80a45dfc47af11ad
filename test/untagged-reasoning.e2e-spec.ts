import { sseChunk, sseText } from './support/fake-llm.js';
import { deltas, pieces, useEngineRig, xmlCall } from './support/turn-harness.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/**
 * LLM_UNTAGGED_REASONING: a template that opens `<think>` in the prompt, served without a
 * reasoning parser, makes every reply begin with reasoning that has no opening tag.
 */
describe('a reply that begins inside untagged reasoning (LLM_UNTAGGED_REASONING=true), over /ws', () => {
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'qwen3.5',
      LLM_UNTAGGED_REASONING: 'true',
      LLM_TOOLS_FILE: writeToolsFile([weatherTool(base)]),
    }),
    (req, res) => res.end(`${decodeURIComponent(req.path.slice(1))}: sunny`),
  );
  let ws: WsClient;
  beforeEach(async () => {
    rig.llm.reset();
    ws = await WsClient.connect(rig.engine.wsUrl);
  });
  afterEach(() => ws.close());

  const reasoning = 'The user greets me. I should answer briefly, without tools.';

  it('speaks only what follows </think>, split anywhere, and keeps no reasoning in history', async () => {
    rig.llm.enqueue(sseText(pieces(`${reasoning}\n</think>\n\nHello! How can I help?`, 3)));
    const turn = await ws.turn('hi');
    expect(deltas(turn).join('')).not.toContain('greets');
    expect(deltas(turn).join('')).toBe('Hello! How can I help?');
    expect(turn.at(-1)).toEqual({ type: 'assistant_end', text: 'Hello! How can I help?' });

    rig.llm.enqueue(sseText(['Ok.</think>Fine.']));
    await ws.turn('and?');
    const history = rig.llm.requests[1]!.body.messages;
    expect(JSON.stringify(history)).not.toContain('greets');
  });

  it('makes a call written before </think>, then speaks the next round', async () => {
    rig.llm.enqueue(
      sseText(
        pieces(`The user wants Paris weather.${xmlCall('get_weather', { city: 'Paris' })}`, 4),
      ),
      sseText(pieces('It is sunny</think>\n\nParis is sunny today.', 4)),
    );
    const turn = await ws.turn('Weather in Paris?');
    expect(turn.find((m) => m.type === 'tool_call')).toMatchObject({
      name: 'get_weather',
      arguments: { city: 'Paris' },
    });
    expect(rig.tools.requests.map((r) => r.path)).toContain('/Paris');
    expect(deltas(turn).join('')).toBe('Paris is sunny today.');
  });

  it('sends a reply with no </think> whole when it ends, as the answer', async () => {
    rig.llm.enqueue(sseText(pieces('Just the answer, no reasoning at all.', 5)));
    const turn = await ws.turn('hi');
    expect(deltas(turn)).toEqual(['Just the answer, no reasoning at all.']);
  });

  it('streams the content as the answer when the server sends the reasoning apart', async () => {
    rig.llm.enqueue({
      kind: 'sse',
      pieces: [
        sseChunk({ role: 'assistant', reasoning_content: 'Thinking it over.' }),
        ...pieces('Hello there, friend.', 4).map((d) => sseChunk({ content: d })),
        sseChunk({}, 'stop'),
        'data: [DONE]\n\n',
      ],
      delayMs: 5,
    });
    const turn = await ws.turn('hi');
    const texts = deltas(turn);
    expect(texts.join('')).toBe('Hello there, friend.');
    // Streamed as it came, not held to the end.
    expect(texts.length).toBeGreaterThan(1);
  });
});
