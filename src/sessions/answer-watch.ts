/**
 * Whether a server whose connection stays open still answers (a frozen Redis, a network that
 * drops packets): once a command went unanswered within its time, the next ones fail at once
 * rather than each waiting that long (a resume would wait for several), and a probe every
 * `everyMs` finds when it answers again. Pure: no Nest import.
 */
export class AnswerWatch {
  private answering = true;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** A command whose answer says the server answers again (Redis' PING). */
    private readonly probe: () => Promise<unknown>,
    /** Whether a command's failure is its answer not coming in time. */
    private readonly unanswered: (error: unknown) => boolean,
    private readonly everyMs = 1000,
  ) {}

  get ok(): boolean {
    return this.answering;
  }

  /** Runs `command`, or fails at once while the server does not answer. */
  async run<T>(command: () => Promise<T>): Promise<T> {
    if (!this.answering) throw new Error('Redis (SESSION_STORE_URL) is not answering');
    try {
      return await command();
    } catch (error) {
      if (this.unanswered(error)) this.lost();
      throw error;
    }
  }

  /** Stops probing (the store is closed). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private lost(): void {
    if (!this.answering) return;
    this.answering = false;
    let probing = false;
    this.timer = setInterval(() => {
      if (probing) return;
      probing = true;
      this.probe()
        .then(() => {
          this.answering = true;
          this.stop();
        })
        .catch(() => undefined)
        .finally(() => (probing = false));
    }, this.everyMs).unref();
  }
}
