import { Observable, Subscription } from 'rxjs';
import { LlmClient, type LlmEvent, type LlmRequest } from './llm.types.js';

/**
 * Two LLM servers, one behind the other: a request the primary fails before anything of the
 * answer arrived (an `error` event marked retryable: overloaded or unreachable after its retries,
 * or timed out) is sent to the fallback instead. Once the primary has sent anything, its answer
 * stands, errors included: switching then would say things twice.
 */
export class FallbackLlmClient extends LlmClient {
  constructor(
    private readonly primary: LlmClient,
    private readonly fallback: LlmClient,
    private readonly onSwitch: (reason: string) => void,
  ) {
    super();
  }

  stream(request: LlmRequest, signal?: AbortSignal): Observable<LlmEvent> {
    return this.either(
      () => this.primary.stream(request, signal),
      () => this.fallback.stream(request, signal),
    );
  }

  chatReply(request: LlmRequest, signal?: AbortSignal): Observable<LlmEvent> {
    return this.either(
      () => this.primary.chatReply(request, signal),
      () => this.fallback.chatReply(request, signal),
    );
  }

  /** The primary's: the fallback is there for when it fails. */
  override check(signal: AbortSignal): Promise<string | undefined> {
    return this.primary.check(signal);
  }

  private either(
    first: () => Observable<LlmEvent>,
    second: () => Observable<LlmEvent>,
  ): Observable<LlmEvent> {
    return new Observable<LlmEvent>((subscriber) => {
      const subscriptions = new Subscription();
      let answered = false;
      let switched = false;
      subscriptions.add(
        first().subscribe({
          next: (event) => {
            if (switched) return;
            if (!answered && event.type === 'error' && event.retryable) {
              switched = true;
              this.onSwitch(event.message);
              subscriptions.add(second().subscribe(subscriber));
              return;
            }
            answered = true;
            subscriber.next(event);
          },
          error: (error: unknown) => switched || subscriber.error(error),
          complete: () => switched || subscriber.complete(),
        }),
      );
      return subscriptions;
    });
  }
}
