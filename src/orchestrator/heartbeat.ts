import type { WebSocket } from 'ws';

/** A socket the heartbeat watches: whether it answered the last ping. */
export type WatchedSocket = WebSocket & { isAlive?: boolean };

/**
 * Pings every client each `everyMs` and drops one that has not answered the last ping (a dead
 * peer: a phone that left coverage, a NAT that forgot the connection). Anything heard from a
 * socket (a pong, a message) counts as an answer: set `isAlive`. Pure: no Nest import.
 */
export function startHeartbeat(clients: Iterable<WatchedSocket>, everyMs: number): NodeJS.Timeout {
  const heartbeat = setInterval(() => {
    for (const socket of clients) {
      // Not read while too many of its messages wait (ReadLimit): its pong could not be seen.
      if (socket.isPaused) continue;
      if (socket.isAlive === false) {
        socket.terminate();
        continue;
      }
      socket.isAlive = false;
      socket.ping();
    }
  }, everyMs);
  heartbeat.unref();
  return heartbeat;
}
