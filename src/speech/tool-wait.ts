import type { TurnEvent } from '../orchestrator/protocol/server-events.js';

/**
 * In a voice turn that has said nothing yet, tool calls still running after `afterMs` get a
 * short phrase said once (SPEECH_TOOL_WAIT_MS; the oldest running call's tool's `wait_phrase`, or
 * SPEECH_TOOL_WAIT_PHRASE): a caller on the phone
 * hears that the agent is at work rather than dead air. A call awaiting the user's approval, or
 * their answer to its question, is not work the user waits for: from then on nothing more is
 * said by this.
 */
export class ToolWait {
  /** Calls still running: their tools' names, by call id, oldest first. */
  private readonly running = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private done: boolean;

  constructor(
    private readonly afterMs: number,
    /** Whether nothing has been said (or queued to be said) in the turn so far. */
    private readonly silent: () => boolean,
    /** Says the phrase for a wait on `tool` (the oldest call still running). */
    private readonly say: (tool: string) => void,
  ) {
    this.done = afterMs <= 0;
  }

  on(event: TurnEvent): void {
    if (this.done) return;
    if (event.type === 'tool_call') {
      this.running.set(event.id, event.name);
      this.timer ??= this.silent() ? setTimeout(() => this.fire(), this.afterMs) : undefined;
    } else if (event.type === 'tool_result') {
      this.running.delete(event.id);
      if (this.running.size === 0) this.clear();
    } else if (['tool_confirm', 'tool_question', 'assistant_end'].includes(event.type)) {
      this.stop();
    }
  }

  stop(): void {
    this.done = true;
    this.clear();
  }

  private fire(): void {
    this.timer = undefined;
    const [tool] = this.running.values();
    if (tool !== undefined && this.silent()) {
      this.say(tool);
      this.stop();
    }
  }

  private clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * The phrase for a session's language: its own code (`pt-br`), else its primary one (`pt`), else
 * the phrase for any language (`*`); none in another language than the caller's.
 */
export function phraseFor(phrases: Record<string, string>, language: string): string {
  const code = language.toLowerCase();
  return phrases[code] ?? phrases[code.split('-')[0]!] ?? phrases['*'] ?? '';
}
