/**
 * Keys pressed on the caller's phone (DTMF), gathered into entries as an IVR reads them: an entry
 * ends with `#`, or when no key follows for a while (an account number typed, then a pause).
 * Pure: no Nest import.
 */
export class Keypad {
  private keys = '';
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param timeoutMs the pause after the last key that ends an entry
   * @param entered called with each entry (its `#` included)
   */
  constructor(
    private readonly timeoutMs: () => number,
    private readonly entered: (keys: string) => void,
  ) {}

  /** Whether keys are gathered for an entry not yet ended. */
  get typing(): boolean {
    return this.keys !== '';
  }

  /** Keys pressed, one or more, in order. */
  press(digits: string): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const key of digits) {
      this.keys += key;
      if (key === '#') this.end();
    }
    if (this.keys !== '') this.timer = setTimeout(() => this.end(), this.timeoutMs());
  }

  /** The call is over: keys not yet entered are dropped. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.keys = '';
  }

  private end(): void {
    const keys = this.keys;
    this.close();
    if (keys !== '') this.entered(keys);
  }
}
