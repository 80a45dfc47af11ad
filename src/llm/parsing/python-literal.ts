import { setOwn } from './json.js';

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
export function parsePythonicCalls(
  text: string,
): { name: string; args: Record<string, unknown> }[] | undefined {
  const reader = new Reader(text);
  try {
    reader.ws();
    const calls = reader.calls();
    reader.ws();
    return reader.done() && calls.length > 0 ? calls : undefined;
  } catch {
    return undefined;
  }
}

class Fail extends Error {}

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
    return Number(m[0].replace(/_/g, ''));
  }

  calls(): { name: string; args: Record<string, unknown> }[] {
    const out: { name: string; args: Record<string, unknown> }[] = [];
    this.expect('[');
    this.list(']', () => {
      const name = this.name();
      const args: Record<string, unknown> = {};
      this.ws();
      this.expect('(');
      this.list(')', () => this.entry(args, this.name(), '='));
      out.push({ name, args });
    });
    return out;
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
      const e = this.s[this.i++];
      const simple: Record<string, string> = {
        n: '\n',
        t: '\t',
        r: '\r',
        '\\': '\\',
        "'": "'",
        '"': '"',
        '0': '\0',
        b: '\b',
        f: '\f',
      };
      if (e !== undefined && e in simple) out += simple[e];
      else if (e === 'u' || e === 'x') {
        const len = e === 'u' ? 4 : 2;
        out += String.fromCharCode(parseInt(this.s.slice(this.i, this.i + len), 16));
        this.i += len;
      } else out += `\\${e ?? ''}`;
    }
    throw new Fail();
  }
}
