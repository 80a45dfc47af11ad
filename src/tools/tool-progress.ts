import type { ToolProgress } from './tool-executor.js';
import { maskSecrets } from './tool-secrets.js';

/** A progress message is cut to this many characters: a line for a screen, not a report. */
export const PROGRESS_MESSAGE_MAX_CHARS = 300;

/**
 * A server's progress notification as the client is told it: finite numbers only, the message
 * one line of at most PROGRESS_MESSAGE_MAX_CHARS with the tool's secrets masked; undefined when
 * it says nothing.
 */
export function progressUpdate(
  raw: { progress?: unknown; total?: unknown; message?: unknown },
  secrets: Record<string, string>,
): ToolProgress | undefined {
  const number = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const progress = number(raw.progress);
  const total = progress === undefined ? undefined : number(raw.total);
  let message =
    typeof raw.message === 'string'
      ? maskSecrets(raw.message, secrets).replace(/\s+/g, ' ').trim()
      : '';
  if (message.length > PROGRESS_MESSAGE_MAX_CHARS)
    message = `${message.slice(0, PROGRESS_MESSAGE_MAX_CHARS - 1)}…`;
  if (progress === undefined && message === '') return undefined;
  return {
    ...(progress !== undefined && { progress }),
    ...(total !== undefined && { total }),
    ...(message !== '' && { message }),
  };
}
