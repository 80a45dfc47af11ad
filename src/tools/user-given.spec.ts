import { givenByUser, notGiven, userWords } from './user-given.js';

describe('user_given', () => {
  const words = (...texts: string[]) => userWords(texts, 'en');

  it('finds a value written as the user wrote or said it: case, accents, spaces and dashes aside', () => {
    const said = words('Hi, my order is b 7.', 'I am calling from Zürich');
    expect(givenByUser('B-7', said)).toBe(true);
    expect(givenByUser('zurich', said)).toBe(true);
    expect(givenByUser('Order B7', said)).toBe(true);
    expect(givenByUser('B-8', said)).toBe(false);
    expect(givenByUser('Geneva', said)).toBe(false);
    // An address said aloud: its parts were.
    expect(givenByUser('ada@example.com', words('it is ada at example dot com'))).toBe(true);
    expect(givenByUser('ada@example.org', words('it is ada at example dot com'))).toBe(false);
  });

  it('finds numbers said in words, with digits, or digit by digit', () => {
    const said = words(
      'Refund five hundred euros please',
      'my number is five five five, zero one zero zero',
      'the card ends 4242, amount 12.5',
    );
    expect(givenByUser(500, said)).toBe(true);
    expect(givenByUser('500 EUR', said)).toBe(true);
    expect(givenByUser(5550100, said)).toBe(true);
    expect(givenByUser('555-0100', said)).toBe(true);
    expect(givenByUser(4242, said)).toBe(true);
    expect(givenByUser(12.5, said)).toBe(true);
    expect(givenByUser(600, said)).toBe(false);
    expect(givenByUser(12.6, said)).toBe(false);
    // In the session's language too.
    expect(givenByUser(23, userWords(['sono ventitré persone'], 'it'))).toBe(true);
  });

  it('takes a list item by item; values that are no user words are not checked', () => {
    const said = words('rome and paris');
    expect(givenByUser(['Rome', 'Paris'], said)).toBe(true);
    expect(givenByUser(['Rome', 'Oslo'], said)).toBe(false);
    expect(givenByUser(true, said)).toBe(true);
    expect(givenByUser({ city: 'Oslo' }, said)).toBe(true);
  });

  it("names the first argument whose value the user did not give, reading the user's words once", () => {
    let reads = 0;
    const read = () => (reads++, words('order B-7, 500 euros'));
    expect(
      notGiven(['order_id', 'amount'], { order_id: 'B-7', amount: 500 }, read),
    ).toBeUndefined();
    expect(notGiven(['order_id', 'amount'], { order_id: 'B-7', amount: 50_000 }, read)).toEqual({
      name: 'amount',
      value: 50_000,
    });
    // Left out or null: the parameters say whether it may be.
    expect(notGiven(['order_id'], { order_id: null }, read)).toBeUndefined();
    expect(reads).toBe(2);
  });
});
