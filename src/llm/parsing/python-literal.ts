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

  private expect(ch: string): void {
    if (this.s[this.i] !== ch) throw new Fail();
    this.i++;
  }

  private dict(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.expect('{');
    this.ws();
    while (this.s[this.i] !== '}') {
      const key = this.value();
      this.ws();
      this.expect(':');
      this.ws();
      out[String(key)] = this.value();
      this.ws();
      if (this.s[this.i] === ',') {
        this.i++;
        this.ws();
      } else if (this.s[this.i] !== '}') throw new Fail();
    }
    this.i++;
    return out;
  }

  private seq(open: string, close: string): unknown[] {
    const out: unknown[] = [];
    this.expect(open);
    this.ws();
    while (this.s[this.i] !== close) {
      out.push(this.value());
      this.ws();
      if (this.s[this.i] === ',') {
        this.i++;
        this.ws();
      } else if (this.s[this.i] !== close) throw new Fail();
    }
    this.i++;
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
