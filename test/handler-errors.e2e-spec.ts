import { Logger } from '@nestjs/common';
import { of } from 'rxjs';
import { sseText } from './support/fake-llm.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { until } from './support/waiting.js';

/**
 * An error thrown while one event is handled is logged; the process, and every session in it,
 * goes on (RxJS would throw it again outside any handler, ending the process).
 */
describe('an event handler that throws', () => {
  const rig = useEngineRig(() => ({ LLM_MODEL: 'm' }));
  const client = useClientPerTest(rig);

  it('is logged, and the engine goes on serving', async () => {
    const logged: string[] = [];
    const spy = jest
      .spyOn(Logger.prototype, 'error')
      .mockImplementation((message: unknown) => void logged.push(String(message)));
    try {
      of('event').subscribe(() => {
        throw new Error('a handler failed on purpose');
      });
      await until(() => logged.length > 0, 'the log line');
    } finally {
      spy.mockRestore();
    }
    expect(logged[0]).toMatch(/^an event handler failed: Error: a handler failed on purpose\n/);
    rig.llm.enqueue(sseText(['Still here.']));
    expect((await client.ws.turn('hello')).at(-1)).toEqual({
      type: 'assistant_end',
      text: 'Still here.',
    });
  });
});
