import { sseText, type Script } from './support/fake-llm.js';
import { loadVectors, randomSplit, rng, type Vector } from './support/qwen-vectors.js';
import { postTools } from './support/tools-file.js';
import { deltas, MARKUP, useEngineRig } from './support/turn-harness.js';
import { WsClient, type Msg } from './support/ws-client.js';

/**
 * Every parser vector through the running engine, as a client sees it: the vector's tools are
 * installed with POST /api/tools, the fake LLM streams the model output in random 1–7 character
 * deltas (or replays the vector's own chunks or reply), and the calls must arrive as `tool_call` events
 * with the reference's names and arguments, with no markup in any `assistant_delta`.
 */

// The engine's `tool_call` event carries an arguments object; these expect a bare string.
const notAnObject = (v: Vector) =>
  (v.expected ?? v.expected_final)!.tool_calls.some(
    (c) => typeof c.arguments !== 'object' || c.arguments === null,
  );
const policyExceptions = new Set([
  'vllm_legacy-string_null_becomes_none-1', // we follow vLLM current: "null" stays a string
  'vllm-hermes-test_hermes_parser_non_streaming_tool_call_invalid_json-1', // a bad block is dropped alone
]);

const vectors = [
  ...loadVectors('qwen3-coder-vectors.json'),
  ...loadVectors('hermes-vectors.json'),
  ...loadVectors('qwen3-coder-streaming.json'),
  // Not used while the parser was written: SGLang's and rtp-llm's detector tests, a reported leak.
  ...loadVectors('other-references.json'),
].filter((v) => !policyExceptions.has(v.id) && !notAnObject(v));

/** A vector with its own deltas runs with them, and again cut at random. */
const cases: [string, Vector, string[] | undefined][] = vectors.flatMap((v) =>
  v.deltas
    ? [
        [`${v.id} (its deltas)`, v, v.deltas],
        [`${v.id} (random deltas)`, v, undefined],
      ]
    : [[v.id, v, undefined]],
);

/**
 * What the fake LLM answers for a vector: its own chunks, or its text in random deltas. A
 * non-streamed `message` comes after an empty stream, through the engine's fallback (seed §5).
 */
function firstRound(v: Vector, deltas?: string[]): Script[] {
  if (v.message) {
    const reply = { choices: [{ index: 0, message: v.message, finish_reason: 'tool_calls' }] };
    return [sseText([]), { kind: 'json', body: reply }];
  }
  return [stream(v, deltas)];
}

function stream(v: Vector, deltas?: string[]): Script {
  if (v.chunks) {
    // The vector's chunks are `delta` objects: each goes out in a chat.completion.chunk.
    const sse = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    return {
      kind: 'sse',
      pieces: [...v.chunks.map((c) => sse(c)), sse({}, 'tool_calls'), 'data: [DONE]\n\n'],
    };
  }
  return sseText(deltas ?? randomSplit(v.input!, rng(v.id.length * 31 + 7)));
}

/** The vector's tools as HTTP tools on the recording server (a placeholder tool when it has none). */
function toolsOf(v: Vector, base: string): unknown[] {
  const tools = v.tools ?? [];
  if (tools.length === 0) return [{ name: 'placeholder', url: `${base}/placeholder` }];
  return tools.map(({ function: f }) => ({
    name: f.name,
    ...(f.parameters ? { parameters: f.parameters } : {}),
    url: `${base}/${f.name}`,
    method: 'POST',
  }));
}

describe('parser vectors through the running engine', () => {
  const rig = useEngineRig(() => ({ LLM_MODEL: 'qwen3-coder', LLM_TOOL_MAX_ITERATIONS: '1' }));
  const { llm } = rig;
  /** The tool set installed last: vectors of one source mostly share theirs. */
  let installed = '';

  it.each(cases)('%s', async (_name, v, own) => {
    const tools = toolsOf(v, rig.toolsUrl);
    if (JSON.stringify(tools) !== installed) {
      expect((await postTools(rig.engine.httpUrl, tools)).status).toBe(200);
      installed = JSON.stringify(tools);
    }
    const expected = (v.expected ?? v.expected_final)!;
    llm.reset();
    llm.enqueue(...firstRound(v, own), sseText(['Done.']));
    const ws = await WsClient.connect(rig.engine.wsUrl);
    let msgs: Msg[];
    try {
      msgs = await ws.turn('go');
    } finally {
      ws.close();
    }
    const calls = msgs
      .filter((m) => m.type === 'tool_call')
      .map((m) => ({ name: m.name, arguments: m.arguments }));
    expect(calls).toEqual(
      expected.tool_calls.map((c) => ({ name: c.name, arguments: c.arguments })),
    );
    // Markup the reference itself keeps as text (an example inside prose) may be shown.
    if (!MARKUP.test(expected.content ?? '')) {
      for (const d of deltas(msgs)) expect(d).not.toMatch(MARKUP);
    }
    const end = msgs.at(-1)!;
    expect(end.type).toBe('assistant_end');
    const text = end.text as string;
    // Our policy (NOTES.md §11): all text outside calls is visible, a superset of the reference's.
    if (expected.content !== null) expect(text).toContain(expected.content.trim());
    for (const s of v.content_contains ?? []) expect(text).toContain(s);
    // The tool round's text, before the 'Done.' of the round after it.
    if (v.expected_visible !== undefined)
      expect(text.replace(/\s*Done\.$/, '')).toBe(v.expected_visible);
  });
});
