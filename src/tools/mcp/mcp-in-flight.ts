/**
 * The answers an MCP connection still waits for, so that one its client gives up stops being
 * waited for. Pure: no Nest import.
 *
 * The SDK gives a request up (a call cut short, its time over) by telling the server
 * `notifications/cancelled`, and forgets it, but goes on reading its answer: an event stream (or a
 * JSON body) that a server which answers no cancelled request (MCP's own SDKs do not) never ends.
 * Each call cut short then held an HTTP connection to the server open for as long as the MCP
 * session lasted (a shared one: the engine's). Here the answer of a POST whose every request was
 * given up is let go: its request aborted, its connection closed; a stream the server made
 * resumable (its events carried ids) is not resumed either (the SDK would ask again with a GET).
 */

import { LRUCache } from 'lru-cache';
import { followSignals } from '../../common/request-signal.js';

type Id = string | number;

/** How many resumption tokens of answers given up are kept (the oldest forgotten first). */
const GIVEN_UP_TOKENS = 1000;

/** What an answer's reading needs to know of its requests (see answeredEvents). */
export interface AnswerWatch {
  /** Every request the answer was for was given up: its reading ends quietly. */
  readonly givenUp: boolean;
  /** An event of the answer carried this id: its resumption token. */
  eventId(id: string): void;
  /** The answer is over (read to its end, failed, given up or cancelled). */
  over(): void;
}

/** The answer of one POST of requests `ids`, while it is waited for. */
class Answer implements AnswerWatch {
  private readonly abort = new AbortController();
  private readonly left: Set<Id>;
  private lastEventId: string | undefined;
  private done = false;
  private given = false;
  private unfollow = () => {};

  constructor(
    private readonly ids: readonly Id[],
    private readonly flights: RequestsInFlight,
  ) {
    this.left = new Set(ids);
  }

  /**
   * The POST's signal: aborted once every request of it was given up, or `outer` was, which it
   * follows until the answer is over (a plain signal: Node would keep a composite one for as
   * long as the HTTP client listens to it).
   */
  follow(outer: AbortSignal | undefined): AbortSignal {
    this.unfollow = followSignals([outer], this.abort).release;
    return this.abort.signal;
  }

  get givenUp(): boolean {
    return this.given;
  }

  eventId(id: string): void {
    this.lastEventId = id;
  }

  /** Request `id` was given up; the last one lets the answer go. */
  cancelled(id: Id): void {
    this.left.delete(id);
    if (this.left.size > 0 || this.done) return;
    if (this.lastEventId !== undefined) this.flights.refuseResumption(this.lastEventId);
    this.given = true;
    this.abort.abort(new Error('the MCP request was given up'));
  }

  over(): void {
    if (this.done) return;
    this.done = true;
    this.unfollow();
    this.flights.forget(this.ids, this);
  }
}

/** One connection's requests whose answers are still read, by JSON-RPC id. */
export class RequestsInFlight {
  private readonly answers = new Map<Id, Answer>();
  private readonly givenUpTokens = new LRUCache<string, true>({ max: GIVEN_UP_TOKENS });

  /** A POST of requests `ids` is sent: its answer, to watch (undefined for a POST of none). */
  sent(ids: readonly Id[]): (AnswerWatch & Pick<Answer, 'follow'>) | undefined {
    if (ids.length === 0) return undefined;
    const answer = new Answer(ids, this);
    for (const id of ids) this.answers.set(id, answer);
    return answer;
  }

  /** The client gave request `id` up (`notifications/cancelled`). */
  cancelled(id: Id): void {
    const answer = this.answers.get(id);
    this.answers.delete(id);
    answer?.cancelled(id);
  }

  /** Whether a GET resuming the stream at event `token` resumes an answer given up (once). */
  resumesGivenUp(token: string | null): boolean {
    return token !== null && this.givenUpTokens.delete(token);
  }

  /** How many requests' answers are read now. */
  get size(): number {
    return this.answers.size;
  }

  /** @internal */
  refuseResumption(token: string): void {
    this.givenUpTokens.set(token, true);
  }

  /** @internal */
  forget(ids: readonly Id[], answer: Answer): void {
    for (const id of ids) if (this.answers.get(id) === answer) this.answers.delete(id);
  }
}
