/**
 * Joins the `assistant_delta` events one connection is given within one task of the event loop
 * into one frame, sent once that task's synchronous work is done (a microtask: no delay). An
 * engine that keeps up gets one delta per read of the LLM's stream and sends each as it comes;
 * one that falls behind reads several deltas at once and sends them as one frame, not one frame
 * (a JSON encoding, a WebSocket frame, a write to the socket) each: the cost of a delta falls as
 * the load rises, as a relay that forwards what it reads does. Any other event sends the joined
 * text first, so the order is kept. Pure: no Nest import.
 */
import type { ServerEvent } from './protocol/server-events.js';

export class DeltaJoiner {
  private text = '';
  private queued = false;

  constructor(private readonly write: (event: ServerEvent | Buffer) => void) {}

  /**
   * Hands on `event`: a delta waits for the rest of this task's, anything else goes at once after
   * them. Bound (an arrow): the gateway gives it out as the connection's sender.
   */
  readonly send = (event: ServerEvent | Buffer): void => {
    if (!Buffer.isBuffer(event) && event.type === 'assistant_delta') {
      this.text += event.text;
      if (!this.queued) {
        this.queued = true;
        queueMicrotask(this.flush);
      }
      return;
    }
    this.flush();
    this.write(event);
  };

  /** Sends the text joined so far, if any. */
  readonly flush = (): void => {
    this.queued = false;
    if (this.text === '') return;
    const text = this.text;
    this.text = '';
    this.write({ type: 'assistant_delta', text });
  };
}
