import type { Observable } from 'rxjs';
import type { LlmEvent, ToolCallEvent } from '../llm/llm.types.js';
import { StreamedText } from '../llm/streamed-text.js';

export class TurnCancelled extends Error {}
/** The LLM could not answer: the turn ends with an `error` event carrying `code`. */
export class RoundFailed extends Error {
  constructor(
    message: string,
    readonly code: 'llm_failed' | 'llm_disabled' = 'llm_failed',
    /** The server said the conversation does not fit the model's context. */
    readonly contextOverflow = false,
  ) {
    super(message);
  }
}

export interface RoundResult {
  /** All the round's text; set when the round completes (empty while it streams). */
  text: string;
  calls: ToolCallEvent[];
  /** The round's reasoning, when gathered (LLM_KEEP_REASONING); set when the round completes. */
  reasoning: string;
  /** Why the model stopped (`stop`, `tool_calls`, `length`, …), as the server said. */
  finishReason?: string | null;
}

/**
 * Runs one completion to its end, handing each event to `onEvent` as it arrives; its reasoning is
 * gathered only when `keepReasoning` (it goes back with the calls, LLM_KEEP_REASONING).
 * Aborting `signal` unsubscribes (which aborts the HTTP request) and rejects with TurnCancelled.
 */
export function runRound(
  events$: Observable<LlmEvent>,
  signal: AbortSignal,
  onEvent: (event: LlmEvent) => void,
  keepReasoning = false,
): Promise<RoundResult> {
  const round: RoundResult = { text: '', calls: [], reasoning: '' };
  const text = new StreamedText();
  const reasoning = new StreamedText();
  return new Promise<RoundResult>((resolve, reject) => {
    if (signal.aborted) return reject(new TurnCancelled());
    const onAbort = () => {
      subscription.unsubscribe();
      reject(new TurnCancelled());
    };
    const subscription = events$.subscribe({
      next: (event) => {
        if (event.type === 'error') {
          signal.removeEventListener('abort', onAbort);
          subscription?.unsubscribe();
          reject(new RoundFailed(event.message, 'llm_failed', event.contextOverflow === true));
          return;
        }
        if (event.type === 'text') text.append(event.text);
        else if (keepReasoning && event.type === 'reasoning') reasoning.append(event.text);
        if (event.type === 'tool_call') round.calls.push(event);
        if (event.type === 'done') round.finishReason = event.finishReason;
        onEvent(event);
      },
      complete: () => {
        signal.removeEventListener('abort', onAbort);
        round.text = text.toString();
        round.reasoning = reasoning.toString();
        resolve(round);
      },
    });
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * What the operator should hear of a round's end that the user gets none of, or only the start
 * of: output cut off at the model's token limit or by the server's content filter, or no answer
 * at all.
 */
export function endWarning(
  round: Pick<RoundResult, 'text' | 'calls' | 'finishReason'>,
): string | undefined {
  const why = `finish_reason ${JSON.stringify(round.finishReason ?? null)}`;
  if (round.finishReason === 'length')
    return `the model's output was cut off at its token limit (${why}): raise the server's max_tokens (LLM_EXTRA_BODY)`;
  if (round.finishReason === 'content_filter')
    return `the server's content filter stopped the model's output (${why})`;
  if (round.text === '' && round.calls.length === 0) return `the model gave no answer (${why})`;
  return undefined;
}

/** The client's `error` event for a turn that ended early; none when it was interrupted. */
export function failureEvent(
  error: unknown,
): { type: 'error'; code: RoundFailed['code'] | 'internal'; message: string } | undefined {
  if (error instanceof TurnCancelled) return undefined;
  if (error instanceof RoundFailed)
    return { type: 'error', code: error.code, message: error.message };
  return { type: 'error', code: 'internal', message: 'internal error while running the turn' };
}

/**
 * How a turn that ended early is told: its log line (level and words; `tag` names the session
 * and turn), and the client's `error` event (see failureEvent).
 */
export function turnFailure(
  error: unknown,
  tag: string,
): { level: 'log' | 'warn' | 'error'; line: string; event?: ReturnType<typeof failureEvent> } {
  const event = failureEvent(error);
  if (!event) return { level: 'log', line: `turn interrupted (${tag})` };
  if (error instanceof RoundFailed)
    return { level: 'warn', line: `turn ended by an LLM error (${tag}): ${error.message}`, event };
  return { level: 'error', line: `turn failed (${tag}): ${(error as Error).stack}`, event };
}
