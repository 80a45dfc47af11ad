/**
 * Calls of `"background": true` tools: the turn that made one goes on without waiting (the model
 * reads `startedText` as the call's result), the call runs for as long as the connection lasts (a
 * barge-in or a new message does not stop it; the connection closing does, unless the session may
 * be resumed: then they are parked until it is, or the resume window passes; a session resumed in
 * another process gets their results through Redis or the primary, see SharedBackground), and its
 * result, once it comes, is told in a turn of its own, or carried by the user's next message
 * (`resultMessage`).
 */
import { LazyAbort } from '../common/lazy-abort.js';
import type { ToolProgress } from '../tools/tool-executor.js';
import { ProgressRelay, type ToolProgressEvent } from './progress-relay.js';
import type { SharedBackground } from './shared-background.js';
import { NOT_THE_USERS } from './notes.js';

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
  private readonly closed = new LazyAbort();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly arrived: BackgroundResult[] = [];

  /** The calls' progress, told to the connection that has them (see `onProgress`). */
  private readonly progress = new ProgressRelay((event) => this.onProgress(event));

  /**
   * `onArrival`: a call's result has come (it waits in `take` until a turn tells it).
   * `onProgress`: how far a call has got (`tool_progress`), while a connection of this process
   * has the calls (not while they are parked, nor from another process's).
   */
  constructor(
    private onArrival: (result: BackgroundResult) => void,
    private onProgress: (event: ToolProgressEvent) => void = () => {},
  ) {}

  /** Calls still running. */
  get running(): number {
    return this.inFlight.size;
  }

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
    this.progress.opened(id, name);
    const settled: Promise<void> = outcome
      .then((o) => {
        this.progress.closed(id);
        if (!o || this.closed.aborted) return;
        const result = { id, name, ok: o.ok, ms: o.ms, text: o.text };
        tally(result);
        this.deliver(result);
      })
      .catch(() => this.progress.closed(id));
    this.keep(settled);
  }

  /** Call `id` has got this far. */
  report(id: string, update: ToolProgress): void {
    this.progress.report(id, update);
  }

  /** The connection closed, its session resumable: results wait here until one adopts them. */
  park(): void {
    this.onArrival = () => {};
    this.onProgress = () => {};
  }

  /**
   * The calls `parked` by the connection this session was resumed from become this one's: their
   * results, those that came meanwhile first, arrive here, and they end when this one closes.
   */
  adopt(parked: BackgroundCalls): void {
    parked.deliver = (result) => this.deliver(result);
    parked.onProgress = (event) => this.onProgress(event);
    for (const result of parked.take()) this.deliver(result);
    for (const call of parked.inFlight) this.keep(call);
    this.closed.signal.addEventListener('abort', () => parked.close(), { once: true });
  }

  /**
   * The session of these parked calls was resumed in another process: their results go there
   * (`send`), those that came meanwhile first.
   */
  relay(send: (result: BackgroundResult) => void): void {
    this.deliver = send;
    for (const result of this.take()) send(result);
  }

  /** Results of this session's calls that ran in another process. */
  receive(results: BackgroundResult[]): void {
    for (const result of results) this.deliver(result);
  }

  private deliver = (result: BackgroundResult): void => {
    this.arrived.push(result);
    this.onArrival(result);
  };

  private keep(call: Promise<void>): void {
    this.inFlight.add(call);
    void call.finally(() => this.inFlight.delete(call));
  }

  /** The results waiting, taken to be told. */
  take(): BackgroundResult[] {
    return this.arrived.splice(0);
  }

  /** Settles once no call is running. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /** The connection has closed: calls still running are aborted, and no result is kept. */
  close(): void {
    this.closed.abort();
    this.progress.close();
    this.arrived.length = 0;
  }
}

/**
 * Background calls of closed connections whose sessions may be resumed, by session id. With
 * `shared` (Redis, or the primary of ENGINE_PROCESSES), a session resumed in another process gets
 * their results there: `live` finds this process's open sessions' calls.
 */
export class ParkedCalls {
  private readonly parked = new Map<string, { calls: BackgroundCalls; timer: NodeJS.Timeout }>();
  /** Parked calls whose session was resumed in another process: they run until they end. */
  private readonly handedOver = new Set<BackgroundCalls>();

  constructor(
    private readonly shared?: SharedBackground,
    private readonly live: (id: string) => BackgroundCalls | undefined = () => undefined,
    private readonly warn: (message: string) => void = () => {},
  ) {}

  /**
   * Closes this process's connections that hold session `id`, settling once they have closed (the
   * session was resumed in another process: the newest connection owns it). Set by the gateway.
   */
  takeOver: (id: string) => Promise<void> = () => Promise.resolve();

  /** Takes the other processes' news from now on (with `shared`). */
  async listen(): Promise<void> {
    await this.shared?.listen({
      resumed: (id, here) =>
        void (here ? this.handOver(id) : this.takeOver(id).then(() => this.handOver(id))),
      results: (id) => void this.bring(id),
    });
  }

  /**
   * Session `id` was resumed in this process, on a connection whose calls are `calls`: the calls
   * parked here become its own, and those parked in other processes send their results here.
   */
  async resume(id: string, calls: BackgroundCalls): Promise<void> {
    const parked = this.claim(id);
    if (parked) calls.adopt(parked);
    if (!this.shared) return;
    try {
      await this.shared.resumed(id);
      calls.receive(await this.shared.take(id));
    } catch (error) {
      this.warn(
        `background results of other processes not fetched: ${(error as Error).message} (session_id=${id})`,
      );
    }
  }

  /** Session `id` was resumed elsewhere: its calls parked here send their results there (`shared`). */
  private handOver(id: string): void {
    const { shared } = this;
    const calls = shared && this.claim(id);
    if (!calls) return;
    this.handedOver.add(calls);
    calls.relay((result) => {
      shared.put(id, result).catch((error: unknown) => {
        this.warn(
          `background result of ${result.name} lost: ${(error as Error).message} (session_id=${id})`,
        );
      });
    });
    void calls.settled().then(() => this.handedOver.delete(calls));
  }

  /** Results of session `id` wait (`shared`): taken if it is open in this process. */
  private async bring(id: string): Promise<void> {
    const calls = this.live(id);
    if (!calls) return;
    try {
      calls.receive(await this.shared!.take(id));
    } catch (error) {
      this.warn(`background results not fetched: ${(error as Error).message} (session_id=${id})`);
    }
  }

  /** Keeps session `id`'s `calls` for `ms` (its resume window), then aborts them. */
  park(id: string, calls: BackgroundCalls, ms: number): void {
    this.claim(id)?.close();
    calls.park();
    const timer = setTimeout(() => this.claim(id)?.close(), ms);
    timer.unref();
    this.parked.set(id, { calls, timer });
  }

  /** Session `id`'s parked calls, taken (the session was resumed in this process). */
  claim(id: string): BackgroundCalls | undefined {
    const entry = this.parked.get(id);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    this.parked.delete(id);
    return entry.calls;
  }

  /**
   * The engine is stopping (a rolling update): with `shared`, the calls parked here send their
   * results there from now on, for the session to get them wherever it is resumed, and the
   * stop waits (until `deadline`) for them and those handed over before to end. Without, a session
   * cannot be resumed elsewhere: nothing to wait for.
   */
  async drain(deadline: Promise<void>): Promise<void> {
    if (!this.shared) return;
    for (const id of [...this.parked.keys()]) this.handOver(id);
    const running = [...this.handedOver].map((calls) => calls.settled());
    await Promise.race([Promise.all(running), deadline]);
  }

  /** The engine is stopping: every parked call is aborted. */
  closeAll(): void {
    for (const id of [...this.parked.keys()]) this.claim(id)?.close();
    for (const calls of this.handedOver) calls.close();
    this.handedOver.clear();
  }
}

/** What the model reads as the result of a call it made of a background tool. */
export function startedText(name: string): string {
  return `Started: ${name} runs in the background, and its result will come in a later message. Tell the user it is under way; do not call ${name} again for this.`;
}

/** What the model reads of a call that acts, still running when its turn was cut: it goes on. */
export function goesOnText(name: string): string {
  return `Not finished when the turn was interrupted: ${name}'s request had been sent, and it goes on; its result will come in a later message. Do not call ${name} again for this.`;
}

/** How the message that brings a background call's result opens, its tool's name after it. */
const RESULT_OPENING = `${NOT_THE_USERS}the result of `;

/** The message that brings the model a background call's result (as a user message, apart). */
export function resultMessage(r: BackgroundResult): string {
  return `${RESULT_OPENING}${r.name} (call ${r.id}), which ran in the background. Tell the user what it means for them.]\n${r.text}`;
}

/** The tool whose background result `content` (a user message) brings, if it is one. */
export function resultTool(content: string): string | undefined {
  if (!content.startsWith(RESULT_OPENING)) return undefined;
  // A tool's name (TOOL_NAME_PATTERN), then its call.
  return /^([\w-]{1,64}) \(call /.exec(content.slice(RESULT_OPENING.length))?.[1];
}
