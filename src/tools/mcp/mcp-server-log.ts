/**
 * A server's log message (MCP `notifications/message`: FastMCP's `ctx.info()`, the SDK's
 * `sendLoggingMessage`) as a line of the engine's log, at the level it maps to. Pure: no Nest
 * import.
 */

/** The engine's log levels a server's RFC 5424 levels map to. */
export type EngineLogLevel = 'debug' | 'log' | 'warn' | 'error';

/** The longest part of a message kept in the log (a server may send a whole document). */
const MAX_CHARS = 2000;

const LEVELS: Record<string, EngineLogLevel> = {
  debug: 'debug',
  info: 'log',
  notice: 'log',
  warning: 'warn',
  error: 'error',
  critical: 'error',
  alert: 'error',
  emergency: 'error',
};

/** `params` of a `notifications/message`: its level, and its text (its logger's name first). */
export function serverLogLine(params: { level?: unknown; logger?: unknown; data?: unknown }): {
  level: EngineLogLevel;
  line: string;
} {
  const level = LEVELS[String(params.level)] ?? 'log';
  const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data ?? null);
  const text = data.length > MAX_CHARS ? `${data.slice(0, MAX_CHARS)}…` : data;
  const logger = typeof params.logger === 'string' && params.logger ? `${params.logger}: ` : '';
  return { level, line: `${logger}${text}` };
}
