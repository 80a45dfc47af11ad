import { Logger } from '@nestjs/common';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useTurnHarness } from './support/turn-harness.js';

/** Each call's outcome in the log: which tools a turn ran, and how long each took. */
describe('the log of tool calls', () => {
  const h = useTurnHarness();

  it("logs each call's outcome with its session, turn and call, never its arguments", async () => {
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => {});
    try {
      h.llm.enqueue(
        sseStructuredCalls([
          { id: 'call_1', name: 'get_weather', arguments: { city: 'Secretville' } },
          { id: 'call_2', name: 'down', arguments: {} },
        ]),
        sseText(['Done.']),
      );
      await h.ws.turn('weather?');
      const lines = log.mock.calls.map((c) => String(c[0])).filter((l) => l.startsWith('tool '));
      expect(lines).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /^tool get_weather ok in \d+ ms \(session_id=[\w-]+ turn_id=[\w-]+ call_id=call_1\)$/,
          ),
          expect.stringMatching(
            /^tool down failed in \d+ ms \(session_id=[\w-]+ turn_id=[\w-]+ call_id=call_2\)$/,
          ),
        ]),
      );
      expect(lines.join('\n')).not.toContain('Secretville');
    } finally {
      log.mockRestore();
    }
  });
});
