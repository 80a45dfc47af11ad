import type { ToolProgress } from '../tools/tool-executor.js';

/** The `tool_progress` event: how far call `id` has got. */
export type ToolProgressEvent = { type: 'tool_progress'; id: string; name: string } & ToolProgress;

/** At most one `tool_progress` a call in this many milliseconds; the latest is sent at its end. */
export const PROGRESS_INTERVAL_MS = 250;

interface Open {
  name: string;
  arguments: Record<string, unknown>;
  /** When the last update went out (`now`), or -Infinity. */
  sent: number;
  held?: ToolProgress;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Sends the progress of a turn's calls to its client as `tool_progress`, between each call's
 * `tool_call` (`opened`) and its `tool_result` (`closed`): never for a call the client was not
 * told of, never after its result. A server that reports every item of a long job is not relayed
 * item by item: one update a call each PROGRESS_INTERVAL_MS, the latest (numbers only go up).
 */
export class ProgressRelay {
  private readonly open = new Map<string, Open>();

  constructor(
    private readonly send: (event: ToolProgressEvent) => void,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  opened(id: string, name: string, args: Record<string, unknown> = {}): void {
    this.open.set(id, { name, arguments: args, sent: -Infinity });
  }

  /** Call `id`, while it runs (between its `tool_call` and its `tool_result`). */
  running(id: string): { name: string; arguments: Record<string, unknown> } | undefined {
    return this.open.get(id);
  }

  report(id: string, update: ToolProgress): void {
    const call = this.open.get(id);
    if (!call) return;
    const wait = call.sent + this.intervalMs - this.now();
    if (wait <= 0 && !call.timer) return this.emit(id, call, update);
    call.held = update;
    call.timer ??= setTimeout(() => {
      call.timer = undefined;
      const held = call.held;
      if (held && this.open.get(id) === call) this.emit(id, call, held);
    }, wait).unref();
  }

  closed(id: string): void {
    const call = this.open.get(id);
    if (call?.timer) clearTimeout(call.timer);
    this.open.delete(id);
  }

  /** The turn is over: nothing more is sent. */
  close(): void {
    for (const id of [...this.open.keys()]) this.closed(id);
  }

  private emit(id: string, call: Open, update: ToolProgress): void {
    call.held = undefined;
    call.sent = this.now();
    this.send({ type: 'tool_progress', id, name: call.name, ...update });
  }
}
