import { setOwn } from './json.js';
import { hermesBlock, openHermesBlock } from './special-token-calls.js';

// FunctionGemma's calls, in the text from a server without its parser that sends special tokens:
//   <start_function_call>call:get_weather{city:<escape>Paris<escape>,days:2}<end_function_call>
// A string value is between `<escape>` tokens; other values are written bare (numbers, true,
// false, null), or as such objects (`{k:v,…}`) and lists (`[v,…]`). After vLLM's, llama.cpp's
// and mlx-lm's `functiongemma` parsers.

export const START_FUNCTION_CALL = '<start_function_call>';
const END_FUNCTION_CALL = '<end_function_call>';
const ESCAPE = '<escape>';
const CALL = /^\s*call:([\w.-]+)\s*/;

/**
 * The token after a call where the model waits for its result, a stop sequence of FunctionGemma's:
 * a server that does not stop there lets the model write the result itself; the answer ends.
 */
export const START_FUNCTION_RESPONSE = '<start_function_response>';

/**
 * The FunctionGemma call starting at `i` in `s` as a Hermes block, with where it ends; `wait`
 * while its end token has not arrived; undefined when none starts there. At the end of the
 * output, a call without its end token keeps what was written of it, said to be unclosed.
 */
export function functionGemmaCall(
  s: string,
  i: number,
  final: boolean,
): { text: string; end: number } | 'wait' | undefined {
  if (!s.startsWith(START_FUNCTION_CALL, i)) return undefined;
  const close = s.indexOf(END_FUNCTION_CALL, i);
  if (close === -1 && !final) return 'wait';
  const body = s.slice(i + START_FUNCTION_CALL.length, close === -1 ? s.length : close);
  const end = close === -1 ? s.length : close + END_FUNCTION_CALL.length;
  const call = CALL.exec(body);
  if (!call) return { text: '', end }; // no name: nothing to call
  const reader = new Reader(body, call[0].length);
  let args: unknown;
  try {
    args = reader.value();
  } catch {
    args = undefined;
  }
  const name = call[1]!;
  const json = args === undefined ? body.slice(call[0].length) : JSON.stringify(args);
  // Cut off by the end of the output: the block is left open, for the text parser to say so.
  if (close === -1) return { text: openHermesBlock(name, json), end };
  return { text: hermesBlock(name, json, true), end };
}

class Fail extends Error {}

/** A reader of FunctionGemma's values; at the end of the text, what was written is kept. */
class Reader {
  constructor(
    private readonly s: string,
    private i: number,
  ) {}

  private rest(): string {
    return this.s.slice(this.i);
  }

  value(): unknown {
    this.ws();
    if (this.s.startsWith(ESCAPE, this.i)) return this.escaped();
    const c = this.s[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.list();
    const m = /^[^,}\]]*/.exec(this.rest())!;
    this.i += m[0].length;
    const raw = m[0].trim();
    if (raw === '') throw new Fail();
    return /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)$/.test(raw) ? JSON.parse(raw) : raw;
  }

  private escaped(): string {
    const from = this.i + ESCAPE.length;
    const to = this.s.indexOf(ESCAPE, from);
    this.i = to === -1 ? this.s.length : to + ESCAPE.length;
    return this.s.slice(from, to === -1 ? this.s.length : to);
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.items('}', () => {
      const key = /^\s*([^:{}[\],]+?)\s*:/.exec(this.rest());
      if (!key) throw new Fail();
      this.i += key[0].length;
      setOwn(out, key[1]!, this.value());
    });
    return out;
  }

  private list(): unknown[] {
    const out: unknown[] = [];
    this.items(']', () => out.push(this.value()));
    return out;
  }

  /** `open item, item… close` (its opener at the reader); the end of the text closes it too. */
  private items(close: string, item: () => void): void {
    this.i++;
    for (this.ws(); this.i < this.s.length && this.s[this.i] !== close; this.ws()) {
      item();
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.i < this.s.length && this.s[this.i] !== close) throw new Fail();
    }
    if (this.i < this.s.length) this.i++;
  }

  private ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }
}
