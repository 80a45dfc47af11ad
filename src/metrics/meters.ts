/** What one turn and one completion request measure, told to the engine's metrics. Pure: no Nest import. */

const seconds = (since: number) => (performance.now() - since) / 1000;

/** One turn's measurements; `see` is called with every event the turn sends. */
export class TurnMeter {
  private readonly started = performance.now();
  private texted = false;

  constructor(
    private readonly onFirstText: (seconds: number) => void,
    /**
     * A call's result; `repeated`: not run, the same call having succeeded earlier in the turn;
     * `modelError`: not run, the model having got it wrong.
     */
    private readonly onTool: (
      tool: string,
      ok: boolean,
      ms: number,
      repeated: boolean,
      modelError?: string,
    ) => void,
    private readonly onEnd: (
      outcome: 'completed' | 'interrupted' | 'failed',
      s: number,
      usage?: { prompt_tokens: number; completion_tokens: number },
    ) => void,
  ) {}

  see(event: {
    type: string;
    name?: string;
    ok?: boolean;
    ms?: number;
    background?: string;
    repeated?: boolean;
    model_error?: string;
  }): void {
    if (event.type === 'assistant_delta') {
      if (this.texted) return;
      this.texted = true;
      this.onFirstText(seconds(this.started));
    } else if (event.type === 'tool_result' && event.background !== 'started') {
      this.onTool(
        event.name ?? '',
        event.ok === true,
        event.ms ?? 0,
        event.repeated === true,
        event.model_error,
      );
    }
  }

  end(
    outcome: 'completed' | 'interrupted' | 'failed',
    usage?: { prompt_tokens: number; completion_tokens: number },
  ): void {
    this.onEnd(outcome, seconds(this.started), usage);
  }
}

/** One completion request's measurements. */
export class LlmMeter {
  private readonly started = performance.now();
  private answered = false;

  constructor(
    private readonly onFirstEvent: (seconds: number) => void,
    private readonly onEnd: (outcome: 'ok' | 'error' | 'cancelled') => void,
  ) {}

  /** Called with each event of the request (only the first is timed). */
  see(): void {
    if (this.answered) return;
    this.answered = true;
    this.onFirstEvent(seconds(this.started));
  }

  end(outcome: 'ok' | 'error' | 'cancelled'): void {
    this.onEnd(outcome);
  }
}
