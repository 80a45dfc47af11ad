/**
 * How the engine closes a session's connection, and the close codes it uses (the protocol's own
 * are 4000–4999). Pure: no Nest import.
 */
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebSocket } from 'ws';

/** Close code 1001 (going away): the client should reconnect, and reach another engine. */
export const GOING_AWAY = 1001;
/** Close code 1013 (try again later): this engine is full; another replica may not be. */
export const TRY_AGAIN_LATER = 1013;
/** Close code 4001: the session was resumed on a newer connection. */
export const TAKEN_OVER = 4001;
/** Closed with DELETE /api/sessions/{id}: not to be resumed. */
export const CLOSED_BY_ADMIN = 4002;
/** A session ended because its user stayed silent (USER_IDLE_SECS). */
export const USER_IDLE = 4003;
/** A session the model ended (an `end_session` tool): it cannot be resumed. */
export const ENDED_BY_AGENT = 4004;
/** A session the model handed over to a person (a `transfer_call` tool). */
export const TRANSFERRED = 4005;
/** A placed call an answering machine (or a fax) took: the message left, it cannot be resumed. */
export const ANSWERING_MACHINE = 4006;
/** A conversation that reached its time limit (SESSION_MAX_SECS): it cannot be resumed. */
export const TIME_LIMIT = 4007;

/** How long a client has to answer the close handshake before its connection is cut. */
const CLOSE_HANDSHAKE_MS = 1000;

/** A connection `closedWith` the code the engine closed it with, when it did. */
export type ClosingSocket = WebSocket & { closedWith?: number };

/** Closes the connection with `code`, cut if its client does not answer the handshake in time. */
export async function closeSocket(
  socket: ClosingSocket,
  code: number,
  reason: string,
): Promise<void> {
  const isClosed = () => socket.readyState === socket.CLOSED;
  if (isClosed()) return;
  const closed = once(socket, 'close');
  socket.closedWith ??= code;
  socket.close(code, reason);
  const cut = new AbortController();
  await Promise.race([closed, sleep(CLOSE_HANDSHAKE_MS, undefined, { signal: cut.signal })]).catch(
    () => undefined,
  );
  cut.abort();
  if (!isClosed()) socket.terminate();
}

const REASONS: Record<number, string> = {
  [GOING_AWAY]: 'server_shutdown',
  [TAKEN_OVER]: 'resumed_elsewhere',
  [CLOSED_BY_ADMIN]: 'admin',
  [USER_IDLE]: 'user_idle',
  [ENDED_BY_AGENT]: 'agent',
  [TRANSFERRED]: 'transferred',
  [ANSWERING_MACHINE]: 'answering_machine',
  [TIME_LIMIT]: 'time_limit',
};

/** Why a session ended (`agent_engine_sessions_ended_total`), from how its connection closed. */
export function endReason(socket: ClosingSocket, code: number): string {
  const own = socket.closedWith !== undefined ? REASONS[socket.closedWith] : undefined;
  return own ?? (code === 1006 ? 'dropped' : 'client');
}
