import { ConsoleLogger, type LoggerService, type LogLevel } from '@nestjs/common';
import { pino, type DestinationStream, type Logger as Pino } from 'pino';

const LEVELS: Record<LogLevel, string> = {
  verbose: 'trace',
  debug: 'debug',
  log: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'fatal',
};

const ORDER: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/** The levels Nest's console logger prints for LOG_LEVEL=`level`. */
export function levelsUpTo(level: LogLevel): LogLevel[] {
  return ORDER.slice(0, ORDER.indexOf(level) + 1);
}

/** Nest's Logger API, written as JSON lines by pino (one object per line, `context` = the class). */
export class JsonLogger implements LoggerService {
  private readonly pino: Pino;

  constructor(level: LogLevel, destination?: DestinationStream) {
    const options = {
      level: LEVELS[level],
      base: { service: 'audio-agent-engine', pid: process.pid },
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label: string) => ({ level: label }) },
    };
    this.pino = destination ? pino(options, destination) : pino(options);
  }

  private write(level: LogLevel, message: unknown, params: unknown[]): void {
    const context = typeof params.at(-1) === 'string' ? (params.at(-1) as string) : undefined;
    const fields: Record<string, unknown> = context ? { context } : {};
    if (level === 'error' && typeof params[0] === 'string' && params.length > 1)
      fields.stack = params[0];
    const method = LEVELS[level] as 'info';
    if (message instanceof Error) this.pino[method]({ ...fields, err: message }, message.message);
    else if (typeof message === 'object' && message !== null)
      this.pino[method]({ ...fields, ...message });
    else this.pino[method](fields, String(message));
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('log', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }
}

/** Log lines of a process without the Nest app (ENGINE_PROCESSES' primary, the start-up). */
export interface ProcessLog {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Lines of `context` in the engine's format (LOG_FORMAT, LOG_LEVEL). */
export function processLog(
  env: { logFormat: string; logLevel: LogLevel },
  context: string,
): ProcessLog {
  const logger =
    env.logFormat === 'json'
      ? new JsonLogger(env.logLevel)
      : new ConsoleLogger({ logLevels: levelsUpTo(env.logLevel) });
  return {
    log: (m) => logger.log(m, context),
    warn: (m) => logger.warn(m, context),
    error: (m) => logger.error(m, context),
  };
}
