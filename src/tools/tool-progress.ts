import type { ToolProgress } from './tool-executor.js';
import { maskSecrets } from './tool-secrets.js';

/** A progress message is cut to this many characters: a line for a screen, not a report. */
export const PROGRESS_MESSAGE_MAX_CHARS = 300;
/** A tool's question to its user (a yes or no) is cut to this many characters. */
export const QUESTION_MAX_CHARS = 500;

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
  const message =
    typeof raw.message === 'string'
      ? oneLine(maskSecrets(raw.message, secrets), PROGRESS_MESSAGE_MAX_CHARS)
      : '';
  if (progress === undefined && message === '') return undefined;
  return {
    ...(progress !== undefined && { progress }),
    ...(total !== undefined && { total }),
    ...(message !== '' && { message }),
  };
}

/** A server's text for people as one line of at most `maxChars` (cut with '…'). */
export function oneLine(text: string, maxChars: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
}
