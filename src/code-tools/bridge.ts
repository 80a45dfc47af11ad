/**
 * Calls from Python into the engine (`tools.*`, `ces_requests.*`): the code tools process sends
 * the request and waits, blocked, for the answer (see assets/python-sandbox.mjs). Pure: no Nest
 * import.
 */

/** A synchronous call from Python into the engine, answered by the job's bridge handler. */
export interface BridgeRequest {
  kind: 'tool' | 'http' | 'progress' | 'confirm' | 'ask';
  payload: Record<string, unknown>;
}

/** Answers a call; `signal` aborts when its job is interrupted or over (nothing reads the answer). */
export type BridgeHandler = (
  request: BridgeRequest,
  signal: AbortSignal,
  /** Waits for `wait` with the job's time standing still (a question to the user). */
  hold?: <T>(wait: () => Promise<T>) => Promise<T>,
) => Promise<Record<string, unknown>>;

const failure = (why: string) => ({ error: why, text: `Error: tool request failed: ${why}` });

/**
 * The largest answer for responses of up to `responseBytes` (LLM_TOOL_MAX_RESPONSE_BYTES): each
 * byte of a body is at most 6 in JSON (a control character, `\u0001`), with 1 MiB for the rest
 * (headers, cookies, its URL); never under 4 MiB.
 */
export const answerMaxBytes = (responseBytes: number): number =>
  Math.max(4 * 1024 * 1024, 6 * responseBytes + 1024 * 1024);

/**
 * The answer to `requestJson` as the JSON Python reads: the handler's, or why there is none.
 * Never rejects: the process waits for an answer.
 */
export async function bridgeAnswer(
  handler: BridgeHandler | undefined,
  requestJson: string,
  maxBytes: number,
  signal: AbortSignal = new AbortController().signal,
): Promise<string> {
  let answer: Record<string, unknown>;
  try {
    const request = JSON.parse(requestJson) as BridgeRequest;
    answer = handler
      ? await handler(request, signal)
      : { ...failure('not available'), error: 'calls into the engine are not available here' };
  } catch (error) {
    answer = failure((error as Error).message);
  }
  let text: string;
  try {
    text = JSON.stringify(answer);
  } catch (error) {
    // Longer than a string can be ("Invalid string length"), or not JSON at all.
    return JSON.stringify(
      failure(`the answer cannot be handed to the code: ${(error as Error).message}`),
    );
  }
  if (Buffer.byteLength(text) <= maxBytes) return text;
  return JSON.stringify(failure(`the answer is larger than ${maxBytes} bytes`));
}

/** The most calls into the engine one job has answered at once (async code's requests gathered). */
export const MAX_CALLS_IN_FLIGHT = 6;
/** Calls refused for being one too many before the job is stopped (the runtime sends none). */
const MAX_REFUSED = 64;

/**
 * The calls into the engine of one running job. Each answer goes back with the number its request
 * came with (`<seq>\n<answer JSON>`): async code has several out at once, and reads each answer as
 * it comes. Its event loop, waiting for answers, asks to be woken after its next timer is due
 * (`<seq>\n`, nothing after); an interrupt wakes it at once (`0\n`), for Python to see it (a
 * synchronous call waiting is given up), and aborts what is being answered.
 */
export class JobCalls {
  private inFlight = 0;
  private refused = 0;
  private wakeTimer: NodeJS.Timeout | undefined;
  private ended = false;
  private readonly stopped = new AbortController();

  constructor(
    private readonly handler: BridgeHandler | undefined,
    private readonly maxBytes: number,
    private readonly write: (frame: string) => void,
    /** Told when the job's code sent past MAX_REFUSED calls too many (see answer). */
    private readonly onFlood: () => void = () => undefined,
  ) {}

  /** Answers the request numbered `seq`; past MAX_CALLS_IN_FLIGHT at once, with a failure. */
  async answer(requestJson: string, seq: unknown): Promise<void> {
    const n = sequence(seq);
    if (this.inFlight >= MAX_CALLS_IN_FLIGHT) {
      // The runtime never sends more: code that went round it and keeps on is stopped.
      if (++this.refused > MAX_REFUSED) return this.onFlood();
      const why = `more than ${MAX_CALLS_IN_FLIGHT} requests at once`;
      return this.send(`${n}\n${JSON.stringify(failure(why))}`);
    }
    this.inFlight++;
    try {
      const answer = await bridgeAnswer(
        this.handler,
        requestJson,
        this.maxBytes,
        this.stopped.signal,
      );
      this.send(`${n}\n${answer}`);
    } finally {
      this.inFlight--;
    }
  }

  /** Wakes the job's event loop after `ms` (the one wake it waits for: an earlier is dropped). */
  wake(seq: unknown, ms: unknown): void {
    clearTimeout(this.wakeTimer);
    const delay = typeof ms === 'number' && ms > 0 ? Math.min(ms, 2 ** 31 - 1) : 0;
    const n = sequence(seq);
    this.wakeTimer = setTimeout(() => this.send(`${n}\n`), delay);
    this.wakeTimer.unref();
  }

  /** It is interrupted: woken now, and what it asked for aborted. */
  interrupt(): void {
    this.send('0\n');
    this.stopped.abort();
  }

  /** The job is over: nothing more is sent for it, and what it left asked is aborted. */
  end(): void {
    this.ended = true;
    clearTimeout(this.wakeTimer);
    this.stopped.abort();
  }

  private send(frame: string): void {
    if (!this.ended) this.write(frame);
  }
}

const sequence = (seq: unknown): number =>
  typeof seq === 'number' && Number.isSafeInteger(seq) && seq > 0 ? seq : 0;
