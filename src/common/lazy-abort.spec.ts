import { LazyAbort } from './lazy-abort.js';

describe('LazyAbort', () => {
  it('aborts a signal taken before the abort, once', () => {
    const abort = new LazyAbort();
    const signal = abort.signal;
    let heard = 0;
    signal.addEventListener('abort', () => heard++);
    expect(signal.aborted).toBe(false);
    abort.abort();
    abort.abort();
    expect(signal.aborted).toBe(true);
    expect(heard).toBe(1);
    expect(abort.aborted).toBe(true);
    expect(abort.signal).toBe(signal);
  });

  it('hands out an aborted signal when taken after the abort', () => {
    const abort = new LazyAbort();
    abort.abort();
    expect(abort.aborted).toBe(true);
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBeInstanceOf(DOMException);
    expect((abort.signal.reason as DOMException).name).toBe('AbortError');
  });

  it('builds no controller when nobody takes the signal', () => {
    const Original = globalThis.AbortController;
    let made = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        made++;
      }
    };
    try {
      const abort = new LazyAbort();
      abort.abort();
      expect(abort.aborted).toBe(true);
      expect(made).toBe(0);
      expect(abort.signal.aborted).toBe(true);
      expect(made).toBe(1);
    } finally {
      globalThis.AbortController = Original;
    }
  });
});
