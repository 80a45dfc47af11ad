import { Keypad, oneKeyAnswer } from './keypad.js';

describe('Keypad', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const keypad = (complete?: (keys: string) => boolean) => {
    const entries: string[] = [];
    return {
      entries,
      pad: new Keypad(
        () => 2000,
        (keys) => entries.push(keys),
        complete,
      ),
    };
  };

  it('ends an entry at # at once, the # kept', () => {
    const { entries, pad } = keypad();
    pad.press('1');
    pad.press('2');
    expect(pad.starts('3')).toBe(false); // the keys go on the entry typed
    pad.press('3#');
    expect(entries).toEqual(['123#']);
    expect(pad.starts('4')).toBe(true);
    jest.advanceTimersByTime(5000);
    expect(entries).toEqual(['123#']);
  });

  it('ends an entry after the pause that follows its last key', () => {
    const { entries, pad } = keypad();
    pad.press('4');
    jest.advanceTimersByTime(1500);
    pad.press('2'); // the pause starts again
    jest.advanceTimersByTime(1999);
    expect(entries).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(entries).toEqual(['42']);
  });

  it('splits keys sent together at each #, the rest waiting for more', () => {
    const { entries, pad } = keypad();
    pad.press('12#*9#7');
    expect(entries).toEqual(['12#', '*9#']);
    jest.advanceTimersByTime(2000);
    expect(entries).toEqual(['12#', '*9#', '7']);
  });

  it('drops the keys of an entry not ended when closed', () => {
    const { entries, pad } = keypad();
    pad.press('55');
    pad.close();
    jest.advanceTimersByTime(5000);
    expect(entries).toEqual([]);
  });

  it('ends an entry at once when its keys are complete, dropping the # that follows it', () => {
    const { entries, pad } = keypad((keys) => keys === '1');
    pad.press('1');
    expect(entries).toEqual(['1']);
    expect(pad.starts('#')).toBe(false); // no entry (nor barge-in) for the 1's #
    expect(pad.starts('#5')).toBe(true);
    pad.press('#');
    pad.press('1#');
    expect(entries).toEqual(['1', '1']);
    pad.press('2');
    pad.press('1');
    jest.advanceTimersByTime(2000);
    expect(entries).toEqual(['1', '1', '21']); // 1 completes an entry only when it starts one
  });

  it('takes a # as an entry of its own when not right after a complete one', () => {
    const { entries, pad } = keypad((keys) => keys === '1');
    pad.press('1');
    jest.advanceTimersByTime(2000); // the pause: the next # is not the 1's
    pad.press('#');
    pad.press('1');
    pad.press('3'); // a key after the complete 1: the # ends its entry
    pad.press('#');
    expect(entries).toEqual(['1', '#', '1', '3#']);
  });
});

describe('oneKeyAnswer', () => {
  const sizes = {
    type: 'choice' as const,
    choices: ['S', 'M', 'L'].map((t) => ({ title: t, value: t })),
  };

  it("takes a choice's place among at most nine, and a whole number of at most 9", () => {
    expect(oneKeyAnswer(sizes, '2')).toBe(true);
    expect(oneKeyAnswer({ type: 'integer', minimum: 1, maximum: 8 }, '4')).toBe(true);
    expect(oneKeyAnswer({ type: 'integer', maximum: 9 }, '0')).toBe(true);
  });

  it('waits for more keys where more could follow, or the key is no place', () => {
    const minutes = {
      type: 'choice' as const,
      choices: ['15', '30', '45'].map((t) => ({ title: `${t} min`, value: t })),
    };
    const ten = {
      type: 'choice' as const,
      choices: [...'ABCDEFGHIJ'].map((t) => ({ title: t, value: t })),
    };
    expect(oneKeyAnswer(minutes, '3')).toBe(false); // "30 min" begins so
    expect(oneKeyAnswer(ten, '1')).toBe(false); // 1 of 10
    expect(oneKeyAnswer(sizes, '0')).toBe(false);
    expect(oneKeyAnswer(sizes, '*')).toBe(false);
    expect(oneKeyAnswer({ type: 'integer', minimum: 1, maximum: 12 }, '1')).toBe(false);
    expect(oneKeyAnswer({ type: 'integer' }, '4')).toBe(false);
    expect(oneKeyAnswer({ type: 'number', maximum: 5 }, '4')).toBe(false);
    expect(oneKeyAnswer({ type: 'text' }, '4')).toBe(false);
  });
});
