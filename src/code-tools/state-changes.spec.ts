import { applyStateChanges } from './state-changes.js';

describe('applyStateChanges', () => {
  it("applies a call's changes key by key, keeping what other calls changed meanwhile", () => {
    const before = { n: 1, cart: ['pen'], note: 'x' };
    // Another call of the round set `points` and changed `n` while this one ran.
    const current = { n: 5, cart: ['pen'], note: 'x', points: 10 };
    // This call added to the cart and deleted `note`; `n` it left as it found it.
    const after = { n: 1, cart: ['pen', 'ink'], coupon: 'A1' };
    expect(applyStateChanges(current, before, after)).toEqual({
      n: 5,
      cart: ['pen', 'ink'],
      points: 10,
      coupon: 'A1',
    });
    expect(current).toEqual({ n: 5, cart: ['pen'], note: 'x', points: 10 }); // not changed in place
  });

  it('keeps the last change of a key both calls changed, and nothing for a call that changed nothing', () => {
    expect(applyStateChanges({ n: 2 }, { n: 1 }, { n: 3 })).toEqual({ n: 3 });
    const current = { n: 2, deep: { a: [1, { b: 2 }] } };
    expect(
      applyStateChanges(
        current,
        { n: 1, deep: { a: [1, { b: 2 }] } },
        { n: 1, deep: { a: [1, { b: 2 }] } },
      ),
    ).toEqual(current);
  });
});
