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

  it('offers tuples and sets as arrays, and hands the function a tuple or a set', async () => {
    const code = [
      'from typing import Tuple',
      'def f(at: tuple[float, float], tags: set[str], ids: frozenset[int] = frozenset(),',
      '      pair: Tuple[str, int] = ("a", 1), path: tuple[str, ...] = ()):',
      '    return [repr(at), sorted(tags), type(tags).__name__, repr(sorted(ids)),',
      '            type(ids).__name__, repr(pair), repr(path)]',
    ].join('\n');
    const analysed = await pool.run({ kind: 'analyze', job: { code }, timeoutMs: 5000 });
    expect((analysed as { parameters: unknown }).parameters).toEqual({
      type: 'object',
      properties: {
        at: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'number' } },
        tags: { type: 'array', uniqueItems: true, items: { type: 'string' } },
        ids: { type: 'array', uniqueItems: true, items: { type: 'integer' } },
        pair: {
          type: 'array',
          minItems: 2,
          maxItems: 2,
          items: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        },
        path: { type: 'array', items: { type: 'string' } },
      },
      required: ['at', 'tags'],
    });
    const args = {
      at: [41.9, 12.5],
      tags: ['b', 'a', 'b'],
      ids: [2, 1],
      pair: ['x', 3],
      path: ['a'],
    };
    const called = (await run(code, args)) as { ok: boolean; result: string };
    expect(JSON.parse(called.result)).toEqual([
      '(41.9, 12.5)',
      ['a', 'b'],
      'set',
      '[1, 2]',
      'frozenset',
      "('x', 3)",
      "('a',)",
    ]);
  });

  // Objects a code tool's function takes: the classes of its code (ADK's FunctionTool takes Pydantic models).
  const RECORDS = [
    'from dataclasses import dataclass, field',
    'from decimal import Decimal',
    'from enum import Enum',
    'from typing import NamedTuple, NotRequired, Optional, TypedDict',
    'import datetime',
    'class Seat(Enum):',
    '    INSIDE = "inside"',
    '    OUTSIDE = "outside"',
    '@dataclass',
    'class Guest:',
    '    """A guest of the booking."""',
    '    name: str',
    '    seat: Seat = Seat.INSIDE',
    '    allergies: list[str] = field(default_factory=list)',
    'class Contact(TypedDict, total=False):',
    '    phone: str',
    '    email: NotRequired[str]',
    'class Slot(NamedTuple):',
    '    day: datetime.date',
    '    hour: int = 20',
    "class BaseModel:  # a stand-in of Pydantic's: it is handed the object to validate",
    '    @classmethod',
    '    def model_validate(cls, value):',
    '        made = cls()',
    '        made.__dict__.update(value, validated=True)',
    '        return made',
    'def Field(*args, **kwargs):',
    '    return None',
    'class Payment(BaseModel):',
    '    amount: Decimal = Field(description="In euros")',
    '    reference: Optional[str] = None',
    '@dataclass',
    'class Node:',
    '    label: str',
    '    next: Optional["Node"] = None',
    'def book(guests: list[Guest], contact: Contact, slot: Slot, payment: Payment, deposit: Decimal,',
    '         chain: Optional[Node] = None):',
    '    return [repr(guests), contact, repr(slot), vars(payment), repr(deposit), repr(chain)]',
  ].join('\n');

  it('offers dataclasses, TypedDicts, NamedTuples and Pydantic models of the code as objects, Decimal as a number', async () => {
    const analysed = await pool.run({
      kind: 'analyze',
      job: { code: RECORDS, name: 'book' },
      timeoutMs: 5000,
    });
    expect((analysed as { parameters: unknown }).parameters).toEqual({
      type: 'object',
      properties: {
        guests: {
          type: 'array',
          items: {
            type: 'object',
            description: 'A guest of the booking.',
            properties: {
              name: { type: 'string' },
              seat: { type: 'string', enum: ['inside', 'outside'], default: 'inside' },
              allergies: { type: 'array', items: { type: 'string' } },
            },
            required: ['name'],
          },
        },
        contact: {
          type: 'object',
          properties: { phone: { type: 'string' }, email: { type: 'string' } },
        },
        slot: {
          type: 'object',
          properties: {
            day: { type: 'string', format: 'date' },
            hour: { type: 'integer', default: 20 },
          },
          required: ['day'],
        },
        payment: {
          type: 'object',
          properties: {
            amount: { type: 'number', description: 'In euros' },
            reference: { type: ['string', 'null'] },
          },
          required: ['amount'],
        },
        deposit: { type: 'number' },
        // A class that holds itself is cut where it comes again.
        chain: {
          type: ['object', 'null'],
          properties: { label: { type: 'string' }, next: { type: ['object', 'null'] } },
          required: ['label'],
        },
      },
      required: ['guests', 'contact', 'slot', 'payment', 'deposit'],
    });
  });

  it('hands the function instances built from the objects, their fields typed by their hints', async () => {
    const args = {
      guests: [
        { name: 'Ada', seat: 'outside', allergies: ['nuts'], shoe_size: 38 },
        { name: 'Bob' },
      ],
      contact: { phone: '+39 06 1234' },
      slot: { day: '2026-12-24' },
      payment: { amount: 12.5 },
      deposit: 0.1,
      chain: { label: 'a', next: { label: 'b' } },
    };
    const call = (given: Record<string, unknown>) =>
      pool.run({
        kind: 'run',
        job: { code: RECORDS, func: 'book', args: given, context: jobContext() },
        timeoutMs: 5000,
      });
    const done = (await call(args)) as { ok: boolean; result: string };
    expect(done.ok).toBe(true);
    expect(JSON.parse(done.result)).toEqual([
      "[Guest(name='Ada', seat=<Seat.OUTSIDE: 'outside'>, allergies=['nuts']), Guest(name='Bob', seat=<Seat.INSIDE: 'inside'>, allergies=[])]",
      { phone: '+39 06 1234' },
      'Slot(day=datetime.date(2026, 12, 24), hour=20)',
      { amount: 12.5, validated: true },
      "Decimal('0.1')",
      "Node(label='a', next=Node(label='b', next=None))",
    ]);
    expect(await call({ ...args, slot: { day: 'Christmas' } })).toMatchObject({
      ok: false,
      error: "Error: ValueError: argument 'slot.day' is not a date: 'Christmas'",
    });
    expect(await call({ ...args, deposit: 'ten' })).toMatchObject({
      ok: false,
      error: "Error: ValueError: argument 'deposit' is not a Decimal: 'ten'",
    });
  });
});
