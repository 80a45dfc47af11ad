/** How a connection's events reach its client. Pure: no Nest import. */
import type { WebSocket } from 'ws';
import { DeltaJoiner } from './delta-joiner.js';
import { wholeCharacters } from '../common/whole-characters.js';
import type { ServerEvent } from './protocol/server-events.js';

/** Events whose every string the engine makes whole: a model's delta, base64 audio. */
const WHOLE_ALREADY = new Set<string>(['assistant_delta', 'audio']);

export interface SenderOptions {
  /** WS_MAX_BUFFERED_BYTES: past this much waiting to be sent, the client is too slow. */
  maxBufferedBytes: number;
  /** Counts an `error` event sent, by its code. */
  error: (code: string) => void;
  /** The client is too slow to read, `buffered` bytes waiting: its connection is cut. */
  tooSlow: (buffered: number) => void;
}

/**
 * Sends JSON events and binary audio while the socket is open, the deltas of one task of the
 * event loop joined (delta-joiner.ts). A client that reads slower than its answer is sent (a
 * stalled app, a bad network) would make the engine hold ever more of it in memory: past
 * WS_MAX_BUFFERED_BYTES its connection is cut, which also ends its turn.
 */
export function socketSender(
  socket: WebSocket,
  { maxBufferedBytes, error, tooSlow }: SenderOptions,
): (event: ServerEvent | Buffer) => void {
  const joiner = new DeltaJoiner((event) => {
    if (socket.readyState !== socket.OPEN) return;
    if (Buffer.isBuffer(event)) socket.send(event, { binary: true });
    else {
      if (event.type === 'error') error(event.code);
      // Half a character the client once sent (a text cut mid-emoji, kept in the history and
      // the settings) goes back as U+FFFD: a client printing it in UTF-8 (Python's print) would
      // fail on the escape. The model's deltas and the speech's base64 are whole characters
      // already, and are not read again (they go out per token and per audio frame).
      socket.send(
        WHOLE_ALREADY.has(event.type)
          ? JSON.stringify(event)
          : JSON.stringify(event, wholeCharacters),
      );
    }
    if (socket.bufferedAmount > maxBufferedBytes) {
      tooSlow(socket.bufferedAmount);
      socket.terminate();
    }
  });
  return joiner.send;
}
