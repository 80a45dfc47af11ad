import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EMPTY, Observable, Subject } from 'rxjs';
import { setTimeout as sleep } from 'node:timers/promises';
import { FallbackLlmClient } from './fallback-llm.client.js';
import { LlmClient, type LlmEvent } from './llm.types.js';
import { llmClient } from '../../test/support/fake-llm.js';

/** A server whose start-up check says `problem`. */
class Checked extends LlmClient {
  constructor(private readonly problem: string | undefined) {
    super();
  }
  stream() {
    return EMPTY;
  }
  chatReply() {
    return EMPTY;
  }
  override check() {
    return Promise.resolve(this.problem);
  }
}

describe('FallbackLlmClient.check', () => {
  const signal = new AbortController().signal;
  const client = (problem: string | undefined) =>
    new FallbackLlmClient(new Checked(problem), new Checked('never asked'), {
      switched: () => undefined,
    });

  it("gives the primary's problem, saying the fallback serves while the primary cannot be reached", async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const closed = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/v1`;
    await new Promise((r) => probe.close(r));
    const fallback = {
      baseUrl: 'http://b/v1',
      model: 'm',
      apiKey: '',
      extraBody: {},
      extraHeaders: {},
      afterMs: 0,
    };
    const primary = llmClient(closed, { model: '', fallback });
    const fallbackClient = new FallbackLlmClient(primary, new Checked('never asked'), {
      switched: () => undefined,
    });
    expect(await fallbackClient.check(signal)).toBe(
      `the LLM server at ${closed} cannot be reached (ECONNREFUSED): requests go to LLM_FALLBACK_BASE_URL until it answers`,
    );
    const refused =
      "the LLM server at http://a/v1 refused the engine's credentials (HTTP 401 to GET /models): check LLM_API_KEY or LLM_EXTRA_HEADERS";
    expect(await client(refused).check(signal)).toBe(refused);
    expect(await client(undefined).check(signal)).toBeUndefined();
  });
});

/** A server whose answer the test writes (`answer`), seeing whether it was asked and let go. */
class Scripted extends LlmClient {
  readonly answer = new Subject<LlmEvent>();
  asked = 0;
  /** Requests cancelled before their answer ended. */
  letGo = 0;
  private finished = false;
  stream() {
    return new Observable<LlmEvent>((subscriber) => {
      this.asked++;
      const run = this.answer.subscribe(subscriber);
      return () => {
        run.unsubscribe();
        if (!this.finished) this.letGo++;
      };
    });
  }
  chatReply() {
    return this.stream();
  }
  /** Answers `text`, then ends. */
  says(text: string) {
    this.answer.next({ type: 'text', text });
    this.answer.next({ type: 'done', finishReason: 'stop' });
    this.finished = true;
    this.answer.complete();
  }
  fails(message: string, retryable = true) {
    this.answer.next({ type: 'error', message, retryable });
    this.finished = true;
    this.answer.complete();
  }
}

describe('FallbackLlmClient with LLM_FALLBACK_AFTER_MS', () => {
  const AFTER_MS = 20;
  let primary: Scripted;
  let fallback: Scripted;
  let told: string[];
  let events: LlmEvent[];
  let ended: boolean;
  beforeEach(() => {
    primary = new Scripted();
    fallback = new Scripted();
    told = [];
    events = [];
    ended = false;
    const client = new FallbackLlmClient(
      primary,
      fallback,
      {
        switched: (reason) => told.push(`switched: ${reason}`),
        hedged: (ms) => told.push(`hedged after ${ms}`),
        decided: (winner) => told.push(`answered: ${winner}`),
      },
      AFTER_MS,
    );
    client.stream({} as never).subscribe({
      next: (event) => events.push(event),
      complete: () => (ended = true),
    });
  });
  const texts = () => events.map((e) => (e.type === 'text' ? e.text : e.type));

  it('asks only the primary when it begins to answer in time', async () => {
    primary.says('Hi.');
    await sleep(AFTER_MS * 2);
    expect(texts()).toEqual(['Hi.', 'done']);
    expect(ended).toBe(true);
    expect(fallback.asked).toBe(0);
    expect(primary.letGo).toBe(0);
    expect(told).toEqual([]);
  });

  it("asks the fallback as well when the primary is slow, and takes the first answer, the other's let go", async () => {
    await sleep(AFTER_MS * 2);
    expect(fallback.asked).toBe(1);
    fallback.says('Quick.');
    expect(texts()).toEqual(['Quick.', 'done']);
    expect(ended).toBe(true);
    expect(primary.letGo).toBe(1);
    expect(told).toEqual([`hedged after ${AFTER_MS}`, 'answered: fallback']);
  });

  it("takes the primary's answer when it comes first after all, the fallback's let go", async () => {
    await sleep(AFTER_MS * 2);
    primary.says('Slow but first.');
    fallback.says('Too late.');
    expect(texts()).toEqual(['Slow but first.', 'done']);
    expect(fallback.letGo).toBe(1);
    expect(told).toEqual([`hedged after ${AFTER_MS}`, 'answered: primary']);
  });

  it('waits for the other when one of the two fails, and gives the last failure when both do', async () => {
    await sleep(AFTER_MS * 2);
    fallback.fails('fallback overloaded');
    expect(events).toEqual([]);
    primary.fails('primary timed out');
    expect(events).toEqual([{ type: 'error', message: 'primary timed out', retryable: true }]);
    expect(ended).toBe(true);
    expect(told).toEqual([`hedged after ${AFTER_MS}`, 'answered: neither']);
  });

  it("takes the fallback's answer after the primary fails while both run", async () => {
    await sleep(AFTER_MS * 2);
    primary.fails('bad request', false);
    fallback.says('Here.');
    expect(texts()).toEqual(['Here.', 'done']);
    expect(told).toEqual([`hedged after ${AFTER_MS}`, 'answered: fallback']);
  });

  it('sends a reply that is not streamed to the primary alone, however long it takes', async () => {
    const [first, second] = [new Scripted(), new Scripted()];
    const reply: LlmEvent[] = [];
    const client = new FallbackLlmClient(first, second, { switched: () => undefined }, AFTER_MS);
    client.chatReply({} as never).subscribe((event) => reply.push(event));
    await sleep(AFTER_MS * 2);
    first.says('Whole.');
    expect(reply.map((e) => e.type)).toEqual(['text', 'done']);
    expect(second.asked).toBe(0);
  });

  it('switches at once, as without it, when the primary fails before the wait is over', async () => {
    primary.fails('overloaded');
    expect(fallback.asked).toBe(1);
    await sleep(AFTER_MS * 2);
    expect(fallback.asked).toBe(1);
    fallback.says('Switched.');
    expect(texts()).toEqual(['Switched.', 'done']);
    expect(told).toEqual(['switched: overloaded']);
  });
});
