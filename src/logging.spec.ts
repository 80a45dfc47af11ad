import { JsonLogger } from './logging.js';

function capture(level: 'log' | 'debug') {
  const lines: Record<string, unknown>[] = [];
  const logger = new JsonLogger(level, {
    write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  return { logger, lines };
}

describe('JsonLogger', () => {
  it('writes one JSON object per line with level label, context and message', () => {
    const { logger, lines } = capture('log');
    logger.log('turn started (session_id=s turn_id=t)', 'TurnManager');
    logger.warn('careful', 'Gateway');
    logger.error('boom', 'Error: boom\n    at x', 'Gateway');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'info',
        context: 'TurnManager',
        msg: 'turn started (session_id=s turn_id=t)',
        service: 'audio-agent-engine',
        pid: process.pid, // tells apart the lines of several engine processes (ENGINE_PROCESSES)
        time: expect.any(String),
      }),
      expect.objectContaining({ level: 'warn', context: 'Gateway', msg: 'careful' }),
      expect.objectContaining({
        level: 'error',
        context: 'Gateway',
        msg: 'boom',
        stack: 'Error: boom\n    at x',
      }),
    ]);
  });

  it('drops debug lines unless LOG_LEVEL=debug (user text and tool arguments live there)', () => {
    const quiet = capture('log');
    quiet.logger.debug('user text: secret', 'TurnManager');
    expect(quiet.lines).toEqual([]);
    const verbose = capture('debug');
    verbose.logger.debug('user text: hello', 'TurnManager');
    expect(verbose.lines).toEqual([
      expect.objectContaining({ level: 'debug', msg: 'user text: hello' }),
    ]);
  });
});
