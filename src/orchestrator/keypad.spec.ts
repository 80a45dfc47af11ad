import { Keypad } from './keypad.js';

describe('Keypad', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const keypad = () => {
    const entries: string[] = [];
    return {
      entries,
      pad: new Keypad(
        () => 2000,
        (keys) => entries.push(keys),
      ),
    };
  };

  it('ends an entry at # at once, the # kept', () => {
    const { entries, pad } = keypad();
    pad.press('1');
    pad.press('2');
    expect(pad.typing).toBe(true);
    pad.press('3#');
    expect(entries).toEqual(['123#']);
    expect(pad.typing).toBe(false);
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
});
