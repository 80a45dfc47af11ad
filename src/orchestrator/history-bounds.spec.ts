import fc from 'fast-check';
import type { ChatMessage } from '../llm/llm.types.js';
import { shedOlderTurns, trimHistory } from './history.js';

/**
 * The history's bounds over random conversations: turns of a user message, rounds of calls (an
 * assistant `tool_calls` message and one tool message per call), and an answer, or none (a turn
 * cut short, or the one in progress).
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
  .tuple(fc.array(round, { maxLength: 3 }), fc.boolean())
  .map(([rounds, answered]): ChatMessage[] => [
    { role: 'user', content: 'q' },
    ...rounds.flat(),
    ...(answered ? [{ role: 'assistant', content: 'a' } as ChatMessage] : []),
  ]);
const history = fc.array(turn, { minLength: 1, maxLength: 8 }).map((turns) => turns.flat());

const turnStarts = (h: ChatMessage[]) => h.flatMap((m, i) => (m.role === 'user' ? [i] : []));

/** Every tool message follows its call, and every call has its tool message. */
function pairedCalls(h: ChatMessage[]): boolean {
  const calls = h.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []) : []));
  const results = h.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : []));
  return JSON.stringify(calls.map((c) => c.id)) === JSON.stringify(results);
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
