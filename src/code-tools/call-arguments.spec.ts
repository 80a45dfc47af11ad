import { jobContext, useOneWorkerPool } from '../../test/support/code-tool-job.js';

/** What a code tool's function is handed of the arguments the model wrote. */
describe('code tool arguments (real Pyodide worker)', () => {
  const pool = useOneWorkerPool();
  const run = (code: string, args: Record<string, unknown>) =>
    pool.run({
      kind: 'run',
      job: { code, func: 'f', args, context: jobContext() },
      timeoutMs: 5000,
    });

  it('leaves out an argument the function does not take, as ADK does, rather than fail the call', async () => {
    const code = 'def f(city: str, *, days: int = 1):\n    return f"{city} {days}"';
    expect(await run(code, { city: 'Rome', days: 2, country: 'IT' })).toMatchObject({
      ok: true,
      result: '"Rome 2"',
    });
    // A function with **kwargs takes them all; a missing argument still fails, saying which.
    const open = 'def f(city, **more):\n    return sorted(more)';
    expect(await run(open, { city: 'Rome', country: 'IT' })).toMatchObject({
      ok: true,
      result: '["country"]',
    });
    expect(await run(code, { country: 'IT' })).toMatchObject({
      ok: false,
      error: "Error: TypeError: f() missing 1 required positional argument: 'city'",
    });
  });

  const BOOKING = [
    'from enum import Enum, auto',
    'from typing import Literal, Optional',
    'import datetime',
    'class Seat(Enum):',
    '    INSIDE = "inside"',
    '    OUTSIDE = "outside"',
    'class Level(Enum):',
    '    LOW = auto()',
    '    HIGH = auto()',
    'def book(when: datetime.date, seat: Seat = Seat.INSIDE, meal: Literal["lunch", "dinner"] = "dinner",',
    '         level: Optional[Level] = None, at: "datetime.datetime | None" = None, price: float | int = 0):',
    '    return [repr(when), repr(seat), meal, repr(level), repr(at), price]',
  ].join('\n');

  it('offers Literal, Enum, date and number unions as the model should write them, with scalar defaults', async () => {
    const analysed = await pool.run({ kind: 'analyze', job: { code: BOOKING }, timeoutMs: 5000 });
    expect(analysed).toMatchObject({ ok: true, name: 'book' });
    expect((analysed as { parameters: unknown }).parameters).toEqual({
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date' },
        seat: { type: 'string', enum: ['inside', 'outside'], default: 'inside' },
        meal: { type: 'string', enum: ['lunch', 'dinner'], default: 'dinner' },
        // auto() values are not known without running the code: the members' names.
        level: { type: ['string', 'null'], enum: ['LOW', 'HIGH', null] },
        at: { type: ['string', 'null'], format: 'date-time' },
        price: { type: 'number', default: 0 },
      },
      required: ['when'],
    });
  });

  it("hands the function an Enum's member and a date, time or UUID where its hints say so", async () => {
    const call = (args: Record<string, unknown>) =>
      pool.run({
        kind: 'run',
        job: { code: BOOKING, func: 'book', args, context: jobContext() },
        timeoutMs: 5000,
      });
    const args = { when: '2026-12-04', seat: 'outside', level: 'HIGH', at: '2026-12-04T10:30:00Z' };
    const typed = (await call(args)) as { ok: boolean; result: string };
    expect(typed.ok).toBe(true);
    expect(JSON.parse(typed.result)).toEqual([
      'datetime.date(2026, 12, 4)',
      "<Seat.OUTSIDE: 'outside'>",
      'dinner',
      '<Level.HIGH: 2>',
      'datetime.datetime(2026, 12, 4, 10, 30, tzinfo=datetime.timezone.utc)',
      0,
    ]);
    const stamped = (await call({ when: '2026-12-04T00:00:00' })) as { result: string };
    expect(JSON.parse(stamped.result)[0]).toBe('datetime.date(2026, 12, 4)');
    expect(await call({ when: '2026-13-45' })).toMatchObject({
      ok: false,
      error: "Error: ValueError: argument 'when' is not a date: '2026-13-45'",
    });
  });
});
