import type { TurnEvent } from '../orchestrator/protocol/server-events.js';

/**
 * The calls of a voice turn while they run: a timer from when they begin (`begin`), cleared once
 * none runs. A call awaiting the user's approval, or their answer to its question, is not work the
 * user waits for: nothing is said of the wait until every such call has been answered
 * (`answered`), and the wait then counts from the answer, the calls at work again.
 */
abstract class WhileCallsRun {
  /** Calls still running: their tools' names, by call id, oldest first. */
  protected readonly running = new Map<string, string>();
  /** Calls waiting for the user's approval or answer. */
  private readonly asking = new Set<string>();
  protected timer: NodeJS.Timeout | undefined;
  private done: boolean;

  constructor(ms: number) {
    this.done = ms <= 0;
  }

  /** The timer for calls that began running (undefined: none). */
  protected abstract begin(): NodeJS.Timeout | undefined;

  on(event: TurnEvent): void {
    if (this.done) return;
    if (event.type === 'tool_call') {
      this.running.set(event.id, event.name);
      this.resume();
    } else if (event.type === 'tool_result') {
      this.running.delete(event.id);
      this.asking.delete(event.id);
      if (this.running.size === 0) this.clear();
      else this.resume();
    } else if (event.type === 'tool_confirm' || event.type === 'tool_question') {
      this.asking.add(event.id);
      this.clear();
    } else if (event.type === 'assistant_end') this.stop();
  }

  /** The user answered call `id`'s question: once no call waits for them, the wait goes on. */
  answered(id: string): void {
    if (this.asking.delete(id)) this.resume();
  }

  /** The timer from now, unless it runs, the user is asked, or no call runs. */
  private resume(): void {
    if (this.done || this.asking.size > 0 || this.running.size === 0) return;
    this.timer ??= this.begin();
  }

  stop(): void {
    this.done = true;
    this.clear();
  }

  private clear(): void {
    clearTimeout(this.timer); // (an interval's too)
    this.timer = undefined;
  }
}

/**
 * In a voice turn that has said nothing yet, tool calls still running after `afterMs` get a
 * short phrase said once (SPEECH_TOOL_WAIT_MS; the oldest running call's tool's `wait_phrase`, or
 * SPEECH_TOOL_WAIT_PHRASE): a caller on the phone hears that the agent is at work rather than
 * dead air.
 */
export class ToolWait extends WhileCallsRun {
  constructor(
    private readonly afterMs: number,
    /** Whether nothing has been said (or queued to be said) in the turn so far. */
    private readonly silent: () => boolean,
    /** Says the phrase for a wait on `tool` (the oldest call still running). */
    private readonly say: (tool: string) => void,
  ) {
    super(afterMs);
  }

  protected begin(): NodeJS.Timeout | undefined {
    return this.silent() ? setTimeout(() => this.fire(), this.afterMs) : undefined;
  }

  private fire(): void {
    this.timer = undefined;
    const [tool] = this.running.values();
    if (tool !== undefined && this.silent()) {
      this.say(tool);
      this.stop();
    }
  }
}

/**
 * While a turn's calls go on running, SPEECH_TOOL_STILL_PHRASE every `everyMs`
 * (SPEECH_TOOL_STILL_MS) from when they began, when nothing else is being said (`quiet`): a
 * caller on hold for a slow booking hears it is still under way rather than a long silence after
 * "One moment.".
 */
export class ToolStill extends WhileCallsRun {
  constructor(
    private readonly everyMs: number,
    private readonly quiet: () => boolean,
    private readonly say: () => void,
  ) {
    super(everyMs);
  }

  protected begin(): NodeJS.Timeout {
    return setInterval(() => {
      if (this.quiet()) this.say();
    }, this.everyMs);
  }
}

/**
 * In a voice turn, nothing of the answer — no word, no call — this long after the user's turn
 * ended (SPEECH_THINKING_WAIT_MS: a thinking model still reasoning, a busy LLM server): `say` is
 * called once, for the wait phrase. Anything the turn sends first (its text, a call, whose wait
 * ToolWait then times, its end) stops it.
 */
export class AnswerWait {
  private timer: NodeJS.Timeout | undefined;

  constructor(afterMs: number, since: number, say: () => void) {
    if (afterMs <= 0) return;
    const due = Math.max(0, since + afterMs - performance.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      say();
    }, due);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
