/** Whether a turn held with the engine shows what its scenario expects. Pure: no Nest import. */
import type { ExpectedCall, TurnExpectation } from './scenario-file.js';

export interface ObservedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** What the client saw of one turn. */
export interface TurnObservation {
  /** The answer's text (`assistant_end`'s). */
  text: string;
  calls: ObservedCall[];
  /** The calls the model got wrong, not run (`tool_result`'s `model_error`): tool and kind. */
  modelErrors: { name: string; kind: string }[];
  /** The turn's `error` event, if any. */
  error?: { code: string; message: string };
  /** From giving the turn (the user's text sent, the speech's end) to the first `assistant_delta`. */
  firstTextMs?: number;
  /** From giving the turn to `assistant_end` (or to giving up). */
  totalMs: number;
  /** What the engine heard of an `audio` turn (its `transcript`s); absent: nothing. */
  transcript?: string;
  /** From giving the turn to the answer's first audio; absent: none came. */
  firstAudioMs?: number;
  /** The turn's end did not come in the time allowed: `awaited` (`assistant_end`, `audio_end`). */
  timedOut?: boolean;
  awaited?: string;
  /** The engine could not hear the turn's speech (its `error` says why): no turn started. */
  unheard?: boolean;
  /** Where the turn's time went, as the engine told (`assistant_end`'s `timings`). */
  timings?: Record<string, unknown>;
  /** The engine closed the connection before the turn's end: how (its code and reason). */
  closed?: string;
}

/**
 * `expected` found in `actual`: equal, a string written `/pattern/flags` matching it, an object's
 * given fields (others may be there too), an array's items one by one.
 */
export function matches(expected: unknown, actual: unknown): boolean {
  if (typeof expected === 'string') {
    const pattern = /^\/(.+)\/([a-z]*)$/s.exec(expected);
    if (pattern && typeof actual === 'string') {
      try {
        return new RegExp(pattern[1]!, pattern[2]).test(actual);
      } catch {
        return expected === actual;
      }
    }
    return expected === actual;
  }
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, i) => matches(item, actual[i]))
    );
  if (typeof expected === 'object' && expected !== null)
    return (
      typeof actual === 'object' &&
      actual !== null &&
      !Array.isArray(actual) &&
      Object.entries(expected).every(
        ([key, value]) =>
          Object.hasOwn(actual, key) && matches(value, (actual as Record<string, unknown>)[key]),
      )
    );
  return expected === actual;
}

const shown = (call: { name: string; arguments?: Record<string, unknown> }) =>
  `${call.name} ${JSON.stringify(call.arguments ?? {})}`;
const quoted = (text: string) =>
  JSON.stringify(text.length > 300 ? `${text.slice(0, 300)}…` : text);

/** The first expected call (in order) the turn did not make, or none. */
function missingCall(expected: ExpectedCall[], calls: ObservedCall[]): ExpectedCall | undefined {
  let from = 0;
  for (const call of expected) {
    const at = calls.findIndex(
      (c, i) => i >= from && c.name === call.name && matches(call.arguments ?? {}, c.arguments),
    );
    if (at === -1) return call;
    from = at + 1;
  }
  return undefined;
}

/** What the turn shows that its expectation does not allow, each a sentence; `[]`: it passed. */
export function judgeTurn(turn: TurnObservation, expect: TurnExpectation = {}): string[] {
  if (turn.closed) return [`${turn.closed} before the turn's end`];
  if (turn.timedOut)
    return [`no ${turn.awaited ?? 'assistant_end'} within ${Math.round(turn.totalMs)} ms`];
  const failures: string[] = [];
  const made = turn.calls.length === 0 ? 'none' : turn.calls.map(shown).join(', ');
  if (expect.tool_calls?.length === 0 && turn.calls.length > 0)
    failures.push(`expected no tool call; the turn called ${made}`);
  const missing = expect.tool_calls && missingCall(expect.tool_calls, turn.calls);
  if (missing)
    failures.push(`expected a call ${shown(missing)} (in order); the turn's calls: ${made}`);
  if (expect.text !== undefined && !new RegExp(expect.text, 'iu').test(turn.text))
    failures.push(`the answer does not match /${expect.text}/i: ${quoted(turn.text)}`);
  if (expect.text_not !== undefined && new RegExp(expect.text_not, 'iu').test(turn.text))
    failures.push(
      `the answer matches /${expect.text_not}/i, which it must not: ${quoted(turn.text)}`,
    );
  if (expect.error !== undefined && turn.error?.code !== expect.error)
    failures.push(
      `expected the error ${expect.error}; ${turn.error ? `got ${turn.error.code}` : 'the turn had none'}`,
    );
  if (expect.error === undefined && turn.error)
    failures.push(`an error: ${turn.error.code}: ${turn.error.message}`);
  if (expect.max_first_text_ms !== undefined) {
    if (turn.firstTextMs === undefined) failures.push('no text came');
    else if (turn.firstTextMs > expect.max_first_text_ms)
      failures.push(
        `the first text came after ${Math.round(turn.firstTextMs)} ms, over max_first_text_ms ${expect.max_first_text_ms}`,
      );
  }
  if (
    expect.transcript !== undefined &&
    !new RegExp(expect.transcript, 'iu').test(turn.transcript ?? '')
  )
    failures.push(
      turn.transcript === undefined
        ? `the engine heard nothing, where /${expect.transcript}/i was to be heard`
        : `what the engine heard does not match /${expect.transcript}/i: ${quoted(turn.transcript)}`,
    );
  if (expect.max_first_audio_ms !== undefined) {
    if (turn.firstAudioMs === undefined) failures.push('no audio came');
    else if (turn.firstAudioMs > expect.max_first_audio_ms)
      failures.push(
        `the first audio came after ${Math.round(turn.firstAudioMs)} ms, over max_first_audio_ms ${expect.max_first_audio_ms}`,
      );
  }
  const requests = turn.timings?.llm_requests;
  if (expect.max_llm_requests !== undefined && typeof requests === 'number')
    if (requests > expect.max_llm_requests)
      failures.push(
        `the turn asked the model ${requests} times, over max_llm_requests ${expect.max_llm_requests}`,
      );
  if (expect.max_total_ms !== undefined && turn.totalMs > expect.max_total_ms)
    failures.push(
      `the turn took ${Math.round(turn.totalMs)} ms, over max_total_ms ${expect.max_total_ms}`,
    );
  return failures;
}
