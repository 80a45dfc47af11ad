import { Observable, Subscription } from 'rxjs';
import { LlmClient, type LlmEvent, type LlmRequest } from './llm.types.js';

/** Which server answered a request sent to both (`LLM_FALLBACK_AFTER_MS`): neither when both failed. */
export type HedgeWinner = 'primary' | 'fallback' | 'neither';

/** What the client tells of its second server's use (for the log and the metrics). */
export interface FallbackHooks {
  /** The primary failed before answering (`reason`): the request goes to the fallback instead. */
  switched: (reason: string) => void;
  /** The primary had not answered within `afterMs`: the request goes to the fallback as well. */
  hedged?: (afterMs: number) => void;
  /** A request sent to both was answered by one of them (the other's cancelled), or by neither. */
  decided?: (winner: HedgeWinner) => void;
}

type Side = 'primary' | 'fallback';

/**
 * Two LLM servers, one behind the other: a request the primary fails before anything of the
 * answer arrived (an `error` event marked retryable: overloaded or unreachable after its retries,
 * or timed out) is sent to the fallback instead. Once the primary has sent anything, its answer
 * stands, errors included: switching then would say things twice. With `afterMs`, a streamed
 * request the primary has not begun to answer by then is sent to the fallback as well: the first of the two
 * to answer gives the answer, and the other's request is cancelled (a queue at the primary costs
 * a caller no more than `afterMs`).
 */
export class FallbackLlmClient extends LlmClient {
  constructor(
    private readonly primary: LlmClient,
    private readonly fallback: LlmClient,
    private readonly hooks: FallbackHooks,
    private readonly afterMs = 0,
  ) {
    super();
  }

  stream(request: LlmRequest, signal?: AbortSignal): Observable<LlmEvent> {
    return this.either(
      () => this.primary.stream(request, signal),
      () => this.fallback.stream(request, signal),
      this.afterMs,
    );
  }

  /** Not hedged: a reply comes whole, its first event when the model has written it all. */
  chatReply(request: LlmRequest, signal?: AbortSignal): Observable<LlmEvent> {
    return this.either(
      () => this.primary.chatReply(request, signal),
      () => this.fallback.chatReply(request, signal),
      0,
    );
  }

  /** The primary's: the fallback is asked only when it fails or is slow. */
  override warm(): void {
    this.primary.warm();
  }

  /** The primary's: the fallback is there for when it fails. */
  override check(signal: AbortSignal): Promise<string | undefined> {
    return this.primary.check(signal);
  }

  private either(
    first: () => Observable<LlmEvent>,
    second: () => Observable<LlmEvent>,
    afterMs: number,
  ): Observable<LlmEvent> {
    return new Observable<LlmEvent>((subscriber) => {
      const { hooks } = this;
      const runs: Partial<Record<Side, Subscription>> = {};
      /** Whose answer the subscriber gets; undefined while neither has begun one. */
      let decided: Side | undefined;
      /** Both were asked at once (the primary slow to begin). */
      let hedged = false;
      /** A side that failed while the other ran: the other's answer is awaited. */
      let down: Side | undefined;
      let timer: NodeJS.Timeout | undefined;
      const decide = (side: Side, winner: HedgeWinner = side) => {
        decided = side;
        clearTimeout(timer);
        const other = side === 'primary' ? 'fallback' : 'primary';
        runs[other]?.unsubscribe();
        if (hedged) hooks.decided?.(winner);
      };
      /**
       * `side` failed before answering: true while the other may still answer (it is awaited),
       * false when the failure is the answer (the other failed too, or was never asked).
       */
      const failed = (side: Side): boolean => {
        const otherRuns = side === 'primary' ? runs.fallback !== undefined : hedged;
        if (otherRuns && down === undefined) {
          down = side;
          return true;
        }
        decide(side, 'neither');
        return false;
      };
      const run = (side: Side, source: () => Observable<LlmEvent>) => {
        runs[side] = source().subscribe({
          next: (event) => {
            if (decided === side) return subscriber.next(event);
            if (decided) return;
            if (event.type !== 'error') {
              decide(side);
              return subscriber.next(event);
            }
            if (side === 'primary' && !runs.fallback && event.retryable) {
              hooks.switched(event.message);
              return run('fallback', second);
            }
            if (!failed(side)) subscriber.next(event);
          },
          error: (error: unknown) => {
            if (decided === side || (!decided && !failed(side))) subscriber.error(error);
          },
          complete: () => {
            if (decided === side) subscriber.complete();
          },
        });
      };
      run('primary', first);
      if (afterMs > 0 && !decided && !runs.fallback)
        timer = setTimeout(() => {
          if (decided || runs.fallback) return;
          hedged = true;
          hooks.hedged?.(afterMs);
          run('fallback', second);
        }, afterMs);
      return () => {
        clearTimeout(timer);
        runs.primary?.unsubscribe();
        runs.fallback?.unsubscribe();
      };
    });
  }
}
