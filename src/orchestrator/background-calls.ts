/**
 * Calls of `"background": true` tools: the turn that made one goes on without waiting (the model
 * reads `startedText` as the call's result), the call runs for as long as the connection lasts (a
 * barge-in or a new message does not stop it; the connection closing does), and its result, once
 * it comes, is told in a turn of its own, or carried by the user's next message (`resultMessage`).
 */
export interface BackgroundResult {
  id: string;
  name: string;
  ok: boolean;
  ms: number;
  /** What the model reads: the result, or the seed's error text. */
  text: string;
}

/** The outcome of a call once it has run, as the turn loop times it; undefined when cut off. */
type Outcome = Promise<{ ok: boolean; ms: number; text: string } | undefined>;

/** One connection's background calls. */
export class BackgroundCalls {
  private readonly closed = new AbortController();
  private readonly running = new Set<Promise<void>>();
  private readonly arrived: BackgroundResult[] = [];

  /** `onArrival`: a call's result has come (it waits in `take` until a turn tells it). */
  constructor(private readonly onArrival: (result: BackgroundResult) => void) {}

  /** The calls' signal: aborted when the connection closes. */
  get signal(): AbortSignal {
    return this.closed.signal;
  }

  /** Results that have come and that no turn has told yet. */
  get waiting(): boolean {
    return this.arrived.length > 0;
  }

  /** Keeps call `id` of tool `name` until its `outcome` comes; `tally` counts it then. */
  track(id: string, name: string, outcome: Outcome, tally: (r: BackgroundResult) => void): void {
    const settled: Promise<void> = outcome
      .then((o) => {
        if (!o || this.closed.signal.aborted) return;
        const result = { id, name, ok: o.ok, ms: o.ms, text: o.text };
        tally(result);
        this.arrived.push(result);
        this.onArrival(result);
      })
      .catch(() => undefined)
      .finally(() => this.running.delete(settled));
    this.running.add(settled);
  }

  /** The results waiting, taken to be told. */
  take(): BackgroundResult[] {
    return this.arrived.splice(0);
  }

  /** Settles once no call is running. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  /** The connection has closed: calls still running are aborted, and no result is kept. */
  close(): void {
    this.closed.abort();
    this.arrived.length = 0;
  }
}

/** What the model reads as the result of a call it made of a background tool. */
export function startedText(name: string): string {
  return `Started: ${name} runs in the background, and its result will come in a later message. Tell the user it is under way; do not call ${name} again for this.`;
}

/** The message that brings the model a background call's result (as a user message, apart). */
export function resultMessage(r: BackgroundResult): string {
  return `[Not said by the user: the result of ${r.name} (call ${r.id}), which ran in the background. Tell the user what it means for them.]\n${r.text}`;
}
