import { startError } from './support/engine.js';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { samples } from './support/prometheus.js';
import { writeToolsFile } from './support/tools-file.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';

const REPEATED =
  'Not run again: the same call, with the same arguments, was made earlier in this turn and succeeded. Its result:\n';

const object = (properties: Record<string, unknown>) => ({ type: 'object', properties });
const TOOLS = (base: string) => [
  {
    name: 'book_table',
    url: `${base}/book`,
    method: 'POST',
    parameters: object({ time: { type: 'string' }, people: { type: 'integer' } }),
  },
  { name: 'add_item', url: `${base}/add`, method: 'POST', parameters: object({ sku: {} }) },
  { name: 'roll_dice', url: `${base}/roll`, method: 'POST', repeatable: true },
  { name: 'checkout', url: `${base}/checkout`, method: 'POST' },
  { name: 'get_hours', url: `${base}/hours`, method: 'GET' },
  { name: 'pay', url: `${base}/pay`, method: 'POST', confirm: true },
];

type Call = { name: string; arguments?: Record<string, unknown> };
let n = 0;
/** One model message making `calls`. */
const message = (...calls: Call[]) =>
  sseStructuredCalls(calls.map((c) => ({ id: `call_${++n}`, arguments: {}, ...c })));

/**
 * `LLM_TOOL_REPEAT_CALLS`: a model that makes a call that acts again in a later round of the same
 * turn (it took the result for a failure, or it is caught in a loop) reads the first result again,
 * and the backend is not asked twice: one table booked, not two.
 */
describe('a call that acts, made again later in its turn', () => {
  let booked = 0;
  const rig = useEngineRig(
    (base) => ({ LLM_MODEL: 'm', LLM_TOOLS_FILE: writeToolsFile(TOOLS(base)) }),
    (req, res) => {
      if (req.path === '/book' && ++booked === 1 && req.body.includes('"9pm"')) {
        res.statusCode = 503;
        return res.end('busy');
      }
      res.end(req.path === '/book' ? `booked #${booked}` : `${req.path.slice(1)} done`);
    },
  );
  const client = useClientPerTest(rig);
  beforeEach(() => (booked = 0));
  const hits = (path: string) => rig.tools.requests.filter((r) => r.path === path).length;
  /** What the model read of each call, in the turn's last request. */
  const toolMessages = () =>
    (rig.llm.requests.at(-1)!.body.messages as { role: string; content: string }[])
      .filter((m) => m.role === 'tool')
      .map((m) => m.content);

  it('is not run again: the model reads the first result, the client sees "repeated"', async () => {
    const booking = { name: 'book_table', arguments: { time: '8pm', people: 4 } };
    rig.llm.enqueue(
      message(booking),
      // The same arguments in another order are the same call.
      message({ name: 'book_table', arguments: { people: 4, time: '8pm' } }),
      message(booking),
      sseText(['Booked for 8pm.']),
    );
    const events = await client.ws.turn('A table for four at 8pm.');
    expect(hits('/book')).toBe(1);
    expect(toolMessages()).toEqual(['booked #1', `${REPEATED}booked #1`, `${REPEATED}booked #1`]);
    const results = events.filter((e) => e.type === 'tool_result');
    expect(results.map((r) => r.repeated ?? false)).toEqual([false, true, true]);
    expect(results[1]).toMatchObject({ ok: true, ms: 0, name: 'book_table' });
    const metrics = samples(await (await fetch(`${rig.engine.httpUrl}/metrics`)).text());
    expect(metrics.get('agent_engine_tool_repeats_total{tool="book_table"}')).toBe(2);
    expect(metrics.get('agent_engine_tool_calls_total{tool="book_table",ok="true"}')).toBe(1);
  });

  it('runs again after a failure, with other arguments, and in the next turn', async () => {
    const at9 = { name: 'book_table', arguments: { time: '9pm', people: 2 } };
    const at10 = { name: 'book_table', arguments: { time: '10pm', people: 2 } };
    rig.llm.enqueue(message(at9), message(at9), message(at10), sseText(['Booked.']));
    await client.ws.turn('A table for two.');
    expect(toolMessages()).toEqual([
      'Error: HTTP 503 Service Unavailable — busy',
      'booked #2',
      'booked #3',
    ]);
    rig.llm.enqueue(message(at10), sseText(['Booked again.']));
    await client.ws.turn('Book it once more, for my other party.');
    expect(toolMessages().at(-1)).toBe('booked #4');
  });

  it('runs each of the same call twice in one message (two of an item)', async () => {
    const milk = { name: 'add_item', arguments: { sku: 'milk' } };
    rig.llm.enqueue(message(milk, milk), sseText(['Two milks added.']));
    await client.ws.turn('Two milks, please.');
    expect(hits('/add')).toBe(2);
  });

  it('runs it again once another call that acts has succeeded since (a second check-out)', async () => {
    const checkout = { name: 'checkout' };
    rig.llm.enqueue(
      message({ name: 'add_item', arguments: { sku: 'milk' } }),
      message(checkout),
      message({ name: 'add_item', arguments: { sku: 'bread' } }),
      message(checkout),
      sseText(['Two orders placed.']),
    );
    await client.ws.turn('Order milk, then bread separately.');
    expect(hits('/checkout')).toBe(2);
  });

  it('runs calls that change nothing, and those of a "repeatable" tool, as often as made', async () => {
    const hours = { name: 'get_hours' };
    const roll = { name: 'roll_dice' };
    rig.llm.enqueue(message(hours, roll), message(hours, roll), sseText(['A six.']));
    const events = await client.ws.turn('Roll again.');
    expect([hits('/hours'), hits('/roll')]).toEqual([2, 2]);
    expect(events.filter((e) => e.type === 'tool_result' && e.repeated)).toEqual([]);
  });

  it('does not ask the user to approve the same payment twice', async () => {
    const { ws } = client;
    rig.llm.enqueue(message({ name: 'pay' }), message({ name: 'pay' }), sseText(['Paid.']));
    ws.send({ type: 'user_text', text: 'Pay it.' });
    const ask = await ws.waitFor((m) => m.type === 'tool_confirm');
    ws.send({ type: 'tool_confirm', id: ask.id, approved: true });
    await ws.waitFor((m) => m.type === 'assistant_end');
    expect(ws.messages.filter((m) => m.type === 'tool_confirm')).toHaveLength(1);
    expect(hits('/pay')).toBe(1);
  });
});

describe('LLM_TOOL_REPEAT_CALLS=run', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOL_REPEAT_CALLS: 'run',
    LLM_TOOLS_FILE: writeToolsFile(TOOLS(base)),
  }));
  const client = useClientPerTest(rig);

  it('runs a call again each time the model makes it', async () => {
    const booking = { name: 'book_table', arguments: { time: '8pm', people: 4 } };
    rig.llm.enqueue(message(booking), message(booking), sseText(['Booked.']));
    await client.ws.turn('A table for four at 8pm.');
    expect(rig.tools.requests.filter((r) => r.path === '/book')).toHaveLength(2);
  });

  it('stops start-up on another value, naming the variable', async () => {
    expect(await startError({ LLM_MODEL: 'm', LLM_TOOL_REPEAT_CALLS: 'never' })).toContain(
      'LLM_TOOL_REPEAT_CALLS="never" is invalid: expected one of reuse, run',
    );
  });
});
