import fc from 'fast-check';
import type { ChatMessage } from '../llm/llm.types.js';
import { alternating, answered, CANCELLED, shedOlderTurns, trimHistory } from './history.js';

/**
 * The history over random conversations: turns of a user message, rounds of calls (an assistant
 * `tool_calls` message and one tool message per call), and an answer, or none (a turn cut short,
 * or the one in progress), and what the client had the agent say after it, or not.
 */
let ids = 0;
const round = fc.integer({ min: 1, max: 3 }).map((calls): ChatMessage[] => {
  const made = Array.from({ length: calls }, () => `c${++ids}`);
  return [
    {
      role: 'assistant',
      content: null,
      tool_calls: made.map((id) => ({
        id,
        type: 'function',
        function: { name: 'f', arguments: '{}' },
      })),
    },
    ...made.map((id): ChatMessage => ({ role: 'tool', tool_call_id: id, content: 'r' })),
  ];
});
const turn = fc
  .tuple(fc.array(round, { maxLength: 3 }), fc.boolean(), fc.boolean(), fc.nat(99))
  .map(([rounds, answer, said, n]): ChatMessage[] => [
    { role: 'user', content: `q${n}` },
    ...rounds.flat(),
    ...(answer ? [{ role: 'assistant', content: `a${n}` } as ChatMessage] : []),
    ...(said ? [{ role: 'assistant', content: `s${n}` } as ChatMessage] : []),
  ]);
const history = fc.array(turn, { minLength: 1, maxLength: 8 }).map((turns) => turns.flat());

const turnStarts = (h: ChatMessage[]) => h.flatMap((m, i) => (m.role === 'user' ? [i] : []));

const callsOf = (m: ChatMessage) => (m.role === 'assistant' ? (m.tool_calls ?? []) : []);

/** Every call has one tool message, and every tool message a call (in any order). */
function pairedCalls(h: readonly ChatMessage[]): boolean {
  const calls = h.flatMap(callsOf).map((c) => c.id);
  const results = h.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : []));
  return JSON.stringify(calls.sort()) === JSON.stringify(results.sort());
}

/** `part` is what is left of `h` after its first messages. */
const isSuffix = (part: ChatMessage[], h: ChatMessage[]) =>
  part.every((m, i) => m === h[h.length - part.length + i]);

describe('trimHistory over random conversations', () => {
  it('keeps the most whole turns within the bound, the turn in progress always', () => {
    fc.assert(
      fc.property(history, fc.integer({ min: 2, max: 30 }), (h, max) => {
        const trimmed = trimHistory(h, max);
        expect(isSuffix(trimmed, h)).toBe(true);
        expect(trimmed[0]!.role).toBe('user');
        expect(pairedCalls(trimmed)).toBe(true);
        const starts = turnStarts(h);
        const from = h.length - trimmed.length;
        if (trimmed.length > max) expect(from).toBe(starts.at(-1));
        // One more turn would not fit: no more was dropped than the bound asks.
        const before = starts.filter((s) => s < from).at(-1);
        if (before !== undefined) expect(h.length - before).toBeGreaterThan(max);
      }),
    );
  });
});

describe('shedOlderTurns over random conversations', () => {
  it('drops at least one whole earlier turn, never the one in progress, or says there is none', () => {
    fc.assert(
      fc.property(history, (h) => {
        const shed = shedOlderTurns(h);
        const starts = turnStarts(h);
        if (starts.length < 2) return expect(shed).toBeUndefined();
        expect(shed).toBeDefined();
        expect(isSuffix(shed!, h)).toBe(true);
        const from = h.length - shed!.length;
        expect(starts).toContain(from);
        expect(from).toBeGreaterThan(0);
        expect(from).toBeLessThanOrEqual(starts.at(-1)!);
        expect(pairedCalls(shed!)).toBe(true);
        // The older half of the earlier turns' messages, and no turn more than that needs.
        const current = starts.at(-1)!;
        expect(from * 2).toBeGreaterThanOrEqual(current);
        expect(starts.filter((s) => s < from).at(-1)! * 2).toBeLessThan(current);
      }),
    );
  });
});

describe('answered over random conversations saved mid-round', () => {
  it('answers every call of the last round, as cancelled those without a result, and keeps the rest', () => {
    const saved = history.chain((h) => {
      const at = h.findLastIndex((m) => m.role === 'assistant' && m.tool_calls !== undefined);
      const results = h.slice(at + 1).filter((m) => m.role === 'tool');
      // The results that had come, in order, and whatever followed them.
      return fc.tuple(
        fc.constant(h),
        fc.subarray(results),
        fc.constant(at === -1 ? [] : h.slice(at + 1 + results.length)),
      );
    });
    fc.assert(
      fc.property(saved, ([h, came, after]) => {
        const at = h.findLastIndex((m) => m.role === 'assistant' && m.tool_calls !== undefined);
        const partial = at === -1 ? h : [...h.slice(0, at + 1), ...came, ...after];
        const done = answered(partial);
        expect(pairedCalls(done)).toBe(true);
        if (at === -1 || came.length === callsOf(h[at]!).length) return expect(done).toBe(partial);
        // What was there stays, in order; only the missing results are added, right after those that came.
        const added = done.filter((m) => !partial.includes(m));
        expect(added.every((m) => m.role === 'tool' && m.content === CANCELLED)).toBe(true);
        expect(done.filter((m) => partial.includes(m))).toEqual(partial);
        expect(done.slice(at + 1, at + 1 + came.length + added.length)).toEqual([
          ...came,
          ...added,
        ]);
      }),
    );
  });
});

describe('alternating over random conversations', () => {
  it('joins user messages in a row and assistant texts in a row, and keeps every call and word', () => {
    fc.assert(
      fc.property(history, (h) => {
        const sent = alternating(h);
        const texts = (m: ChatMessage) => m.role === 'assistant' && !m.tool_calls;
        for (const [i, m] of sent.entries()) {
          const before = sent[i - 1];
          if (!before) continue;
          expect(m.role === 'user' && before.role === 'user').toBe(false);
          expect(texts(m) && texts(before)).toBe(false);
        }
        const words = (ms: readonly ChatMessage[], role: string) =>
          ms.flatMap((m) =>
            m.role === role && typeof m.content === 'string' ? m.content.split(/\s+/) : [],
          );
        expect(words(sent, 'user')).toEqual(words(h, 'user'));
        expect(words(sent, 'assistant')).toEqual(words(h, 'assistant'));
        expect(sent.filter((m) => m.role === 'tool' || callsOf(m).length > 0)).toEqual(
          h.filter((m) => m.role === 'tool' || callsOf(m).length > 0),
        );
        if (sent.length === h.length) expect(sent).toBe(h);
      }),
    );
  });
});
