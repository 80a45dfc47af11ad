/**
 * What the fake LLM server (fake-llm.ts) answers: scripts of SSE streams, JSON bodies, statuses and
 * hang-ups, made by the helpers here or replayed from the transcripts in test/fixtures/sse.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** What the fake server does for one `/chat/completions` request. */
export type Script =
  | {
      kind: 'sse';
      /** Written one by one; bytes may cut a character in two. */
      pieces: (string | Uint8Array)[];
      delayMs?: number;
      /** The last two pieces (the finish chunk and `[DONE]`) wait until this settles. */
      gate?: Promise<void>;
      keepOpen?: boolean;
      /** Sent instead of text/event-stream (a server labelling its stream wrongly). */
      contentType?: string;
    }
  | { kind: 'json'; body: unknown; status?: number }
  | { kind: 'status'; status: number; body: string; headers?: Record<string, string> }
  | { kind: 'hang' }
  /** Closes the connection without answering (a server dropping an idle kept-alive connection). */
  | { kind: 'drop' };

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', model: 'fake', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** SSE for a streamed answer whose content arrives as the given deltas. */
/** `sseText(deltas)` whose last event before `[DONE]` reports the tokens, as OpenAI's include_usage. */
export function sseTextWithUsage(deltas: string[], prompt: number, completion: number) {
  const { pieces } = sseText(deltas);
  const usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
  const last = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [], usage })}\n\n`;
  return { kind: 'sse' as const, pieces: [...pieces.slice(0, -1), last, pieces.at(-1)!] };
}

export function sseText(deltas: string[], finish = 'stop'): SseText {
  return {
    kind: 'sse',
    pieces: [
      chunk({ role: 'assistant', content: '' }),
      ...deltas.map((d) => chunk({ content: d })),
      chunk({}, finish),
      'data: [DONE]\n\n',
    ],
  };
}

/**
 * SSE for one structured call `call_raw` whose arguments, as the model wrote them, are not JSON
 * at all (nothing can mend them).
 */
export function sseRawArgumentsCall(name: string, raw: string): SseText {
  const call = { index: 0, id: 'call_raw', type: 'function', function: { name, arguments: raw } };
  return {
    kind: 'sse',
    pieces: [
      chunk({ role: 'assistant', content: null }),
      chunk({ tool_calls: [call] }),
      chunk({}, 'tool_calls'),
      'data: [DONE]\n\n',
    ],
  };
}

/** SSE of one structured call (`sseStructuredCalls`), with no arguments unless given. */
export const sseCall = (id: string, name: string, args: Record<string, unknown> = {}): SseText =>
  sseStructuredCalls([{ id, name, arguments: args }]);

/** SSE for structured `delta.tool_calls` (one fragment per call, arguments in two pieces). */
export function sseStructuredCalls(
  calls: { id: string; name: string; arguments: Record<string, unknown> }[],
): SseText {
  const pieces: string[] = [chunk({ role: 'assistant', content: null })];
  calls.forEach((c, index) => {
    const args = JSON.stringify(c.arguments);
    const half = Math.floor(args.length / 2);
    pieces.push(
      chunk({
        tool_calls: [
          {
            index,
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: args.slice(0, half) },
          },
        ],
      }),
    );
    pieces.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
  });
  pieces.push(chunk({}, 'tool_calls'), 'data: [DONE]\n\n');
  return { kind: 'sse', pieces };
}

/** vLLM's answer to tool_choice "auto" when it runs without --enable-auto-tool-choice. */
export const VLLM_NO_TOOL_PARSER: Script = {
  kind: 'status',
  status: 400,
  body: JSON.stringify({
    object: 'error',
    message:
      '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
    type: 'BadRequestError',
    code: 400,
  }),
};

/** OpenAI's answer to `max_tokens` for a reasoning model (o-series, GPT-5). */
export const OPENAI_NO_MAX_TOKENS = {
  kind: 'status',
  status: 400,
  body: JSON.stringify({
    error: {
      message:
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      type: 'invalid_request_error',
      param: 'max_tokens',
      code: 'unsupported_parameter',
    },
  }),
} as const satisfies Script;

/** An SSE script whose pieces are text (what the helpers below make). */
export type SseText = Omit<Extract<Script, { kind: 'sse' }>, 'pieces'> & { pieces: string[] };

export const TRANSCRIPTS = readdirSync('test/fixtures/sse')
  .filter((f) => f.endsWith('.txt'))
  .sort();

/** A recorded transcript from test/fixtures/sse, cut into the given byte pieces. */
export function replay(file: string, cuts: number[] = []): Script {
  const text = readFileSync(`test/fixtures/sse/${file}`, 'utf8');
  const points = [...new Set(cuts.map((c) => c % text.length))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let prev = 0;
  for (const p of [...points, text.length]) {
    if (p > prev) pieces.push(text.slice(prev, p));
    prev = p;
  }
  return { kind: 'sse', pieces };
}

export { chunk as sseChunk };
