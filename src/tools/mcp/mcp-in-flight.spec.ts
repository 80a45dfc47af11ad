import { RequestsInFlight } from './mcp-in-flight.js';

describe('RequestsInFlight: the answers an MCP connection waits for', () => {
  it('lets an answer go once every request it was for is given up', () => {
    const inFlight = new RequestsInFlight();
    const answer = inFlight.sent([1, 2])!;
    inFlight.cancelled(1);
    expect(answer.givenUp).toBe(false);
    const signal = answer.follow(undefined);
    inFlight.cancelled(2);
    expect([answer.givenUp, signal.aborted]).toEqual([true, true]);
    expect(inFlight.size).toBe(0);
  });

  it("follows the request's own signal while the answer is read, not as given up", () => {
    const inFlight = new RequestsInFlight();
    const request = new AbortController();
    const answer = inFlight.sent([1])!;
    const signal = answer.follow(request.signal);
    request.abort(new Error('the connection closed'));
    expect([signal.aborted, answer.givenUp]).toEqual([true, false]);
    // Over: its listener taken off the request's signal.
    const next = new AbortController();
    const later = inFlight.sent([2])!;
    const followed = later.follow(next.signal);
    later.over();
    next.abort();
    expect(followed.aborted).toBe(false);
  });

  it('leaves an answer read to its end alone, whatever is cancelled after', () => {
    const inFlight = new RequestsInFlight();
    const answer = inFlight.sent(['a'])!;
    answer.over();
    expect(inFlight.size).toBe(0);
    inFlight.cancelled('a');
    expect(answer.givenUp).toBe(false);
    // A POST of notifications only has no answer to wait for.
    expect(inFlight.sent([])).toBeUndefined();
  });

  it('refuses, once, the resumption of a resumable answer given up, and only that', () => {
    const inFlight = new RequestsInFlight();
    const kept = inFlight.sent([1])!;
    kept.eventId('ev-1');
    const cut = inFlight.sent([2])!;
    cut.eventId('ev-2');
    cut.eventId('ev-3');
    inFlight.cancelled(2);
    expect(inFlight.resumesGivenUp('ev-1')).toBe(false);
    expect(inFlight.resumesGivenUp('ev-2')).toBe(false);
    expect(inFlight.resumesGivenUp(null)).toBe(false);
    expect(inFlight.resumesGivenUp('ev-3')).toBe(true);
    expect(inFlight.resumesGivenUp('ev-3')).toBe(false);
  });

  it('keeps the resumption tokens of the last thousand answers given up', () => {
    const inFlight = new RequestsInFlight();
    for (let i = 0; i < 1005; i++) {
      inFlight.sent([i])!.eventId(`ev-${i}`);
      inFlight.cancelled(i);
    }
    expect(inFlight.resumesGivenUp('ev-4')).toBe(false);
    expect(inFlight.resumesGivenUp('ev-5')).toBe(true);
    expect(inFlight.resumesGivenUp('ev-1004')).toBe(true);
  });
});
