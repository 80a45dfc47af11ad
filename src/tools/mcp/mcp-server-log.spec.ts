import { serverLogLine } from './mcp-server-log.js';

describe('serverLogLine', () => {
  it("maps the server's levels to the engine's and names its logger", () => {
    expect(serverLogLine({ level: 'warning', logger: 'orders', data: 'stock low' })).toEqual({
      level: 'warn',
      line: 'orders: stock low',
    });
    expect(serverLogLine({ level: 'critical', data: { code: 7 } })).toEqual({
      level: 'error',
      line: '{"code":7}',
    });
    expect(serverLogLine({ level: 'notice', data: 'up' }).level).toBe('log');
    expect(serverLogLine({ level: 'debug', data: 'x' }).level).toBe('debug');
    expect(serverLogLine({ level: 'nonsense', data: 'x' }).level).toBe('log');
  });

  it('keeps the first 2000 characters of a long message', () => {
    const { line } = serverLogLine({ level: 'info', data: 'y'.repeat(5000) });
    expect(line).toBe(`${'y'.repeat(2000)}…`);
  });
});
