import { exactNumber, setOwn } from './json.js';

/**
 * A small reader for Python literals, the TypeScript counterpart of `ast.literal_eval` that the
 * reference parsers use after `json.loads` fails: dicts, lists, tuples, single- or double-quoted
 * strings, numbers, True/False/None. Returns `undefined` when the text is not such a literal.
 */
export function parsePythonLiteral(text: string): unknown {
  const reader = new Reader(text);
  try {
    reader.ws();
    const value = reader.value();
    reader.ws();
    return reader.done() ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Calls written as a Python list, the "pythonic" tool format of Llama 3.2 and 4
 * (`[get_weather(city="Paris"), get_time()]`): each name with its keyword arguments. `undefined`
 * when the text is not exactly that.
 */
export function parsePythonicCalls(text: string): PythonCall[] | undefined {
  return readCalls(text, (reader) => reader.calls());
}

/**
 * Calls written as Python statements, as Gemma writes them in a `tool_code` fence
 * (`get_weather(city="Paris")`, or `print(default_api.get_weather(city="Paris"))`), one a line:
 * each name with its keyword arguments. `undefined` when the text is not exactly that.
 */
export function parseCallStatements(text: string): PythonCall[] | undefined {
  return readCalls(text, (reader) => reader.statements());
}

export interface PythonCall {
  name: string;
  args: Record<string, unknown>;
}

function readCalls(text: string, read: (reader: Reader) => PythonCall[]): PythonCall[] | undefined {
  const reader = new Reader(text);
  try {
    reader.ws();
    const calls = read(reader);
    reader.ws();
    return reader.done() && calls.length > 0 ? calls : undefined;
  } catch {
    return undefined;
  }
}

class Fail extends Error {}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\n': '', // a backslash at the end of a line continues the string
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
};
Object.setPrototypeOf(SIMPLE_ESCAPES, null);

/** Hex digits each hex escape takes (`\x41`, `\u00e9`, `\U0001F600`). */
const HEX_ESCAPE_DIGITS: Record<string, number> = { x: 2, u: 4, U: 8 };
Object.setPrototypeOf(HEX_ESCAPE_DIGITS, null);

class Reader {
  private i = 0;
  constructor(private readonly s: string) {}

  done(): boolean {
    return this.i === this.s.length;
  }

  ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }

  value(): unknown {
    const c = this.s[this.i];
    if (c === '{') return this.dict();
    if (c === '[') return this.seq('[', ']');
    if (c === '(') return this.seq('(', ')');
    if (c === '"' || c === "'") return this.str(c);
    for (const [word, value] of [
      ['True', true],
      ['False', false],
      ['None', null],
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return value;
      }
    }
    const m = /^[+-]?(\d[\d_]*\.?\d*(e[+-]?\d+)?|\.\d+(e[+-]?\d+)?)/i.exec(this.s.slice(this.i));
    if (!m) throw new Fail();
    this.i += m[0].length;
    // An integer too long for a JavaScript number stays its digits, as in JSON (json.ts).
    return exactNumber(m[0].replace(/_/g, '').replace(/^\+/, ''));
  }

  calls(): PythonCall[] {
    const out: PythonCall[] = [];
    this.expect('[');
    this.list(']', () => out.push(this.call()));
    return out;
  }

  /** Calls as statements: one a line (or after `;`), each maybe printed (`print(NAME(…))`). */
  statements(): PythonCall[] {
    const out: PythonCall[] = [];
    for (this.ws(); !this.done(); this.ws()) {
      const printed = /^print\s*\(/.exec(this.s.slice(this.i, this.i + 12))?.[0];
      if (printed) this.i += printed.length;
      this.ws();
      out.push(this.call());
      this.ws();
      if (printed) this.expect(')');
      this.ws();
      if (this.s[this.i] === ';') this.i++;
    }
    return out;
  }

  /** `NAME(K=V, …)`. */
  private call(): PythonCall {
    const name = this.name();
    const args: Record<string, unknown> = {};
    this.ws();
    this.expect('(');
    this.list(')', () => this.entry(args, this.name(), '='));
    return { name, args };
  }

  /** `SEP value` after a key already read: the pair goes into `into`. */
  private entry(into: Record<string, unknown>, key: string, sep: string): void {
    this.ws();
    this.expect(sep);
    this.ws();
    setOwn(into, key, this.value());
  }

  /** Items read by `item`, separated by commas, up to and past `close`. */
  private list(close: string, item: () => void): void {
    this.ws();
    while (this.s[this.i] !== close) {
      item();
      this.ws();
      if (this.s[this.i] === ',') {
        this.i++;
        this.ws();
      } else if (this.s[this.i] !== close) throw new Fail();
    }
    this.i++;
  }

  private name(): string {
    const m = /^[A-Za-z_][\w.]*/.exec(this.s.slice(this.i));
    if (!m) throw new Fail();
    this.i += m[0].length;
    return m[0];
  }

  private expect(ch: string): void {
    if (this.s[this.i] !== ch) throw new Fail();
    this.i++;
  }

  private dict(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.expect('{');
    this.list('}', () => this.entry(out, String(this.value()), ':'));
    return out;
  }

  private seq(open: string, close: string): unknown[] {
    const out: unknown[] = [];
    this.expect(open);
    this.list(close, () => out.push(this.value()));
    return out;
  }

  private str(quote: string): string {
    this.i++;
    let out = '';
    while (this.i < this.s.length) {
      const c = this.s[this.i++]!;
      if (c === quote) return out;
      if (c !== '\\') {
        out += c;
        continue;
      }
      out += this.escape();
    }
    throw new Fail();
  }

  /** The escape sequence after a backslash, as Python reads it in a string literal. */
  private escape(): string {
    const e = this.s[this.i++] ?? '';
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) return simple;
    const hex = HEX_ESCAPE_DIGITS[e];
    if (hex !== undefined) {
      const digits = this.s.slice(this.i, this.i + hex);
      if (!new RegExp(`^[0-9a-fA-F]{${hex}}$`).test(digits)) throw new Fail();
      const code = parseInt(digits, 16);
      if (code > 0x10ffff) throw new Fail();
      this.i += hex;
      return String.fromCodePoint(code);
    }
    const octal = /^[0-7]{1,3}/.exec(this.s.slice(this.i - 1, this.i + 2));
    if (octal) {
      this.i += octal[0].length - 1;
      return String.fromCharCode(parseInt(octal[0], 8));
    }
    // Unknown escapes stay as written, backslash included, as in Python.
    return `\\${e}`;
  }
}
