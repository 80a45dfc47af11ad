/* eslint-disable @typescript-eslint/only-throw-error -- INCOMPLETE is a control-flow signal thrown without a stack, for speed */
import { INCOMPLETE, XmlScanner } from './xml-scanner.js';
import { NAME_OK, tagName, WRAPPED_NAME_OK } from './function-tag.js';
import { callFrom, jsonObjectEnd } from './hermes-call.js';
import { setOwn, ownValue } from './json.js';
import { typeValue, type ParamSchema, type ToolSchemas } from './value-typing.js';
import { END_CALL, END_FN, END_INVOCATION, END_PARAM, FN, OPEN_CALL, PARAM } from './tags.js';

export type XmlCallResult =
  | { kind: 'incomplete' }
  | { kind: 'invalid'; end: number }
  | {
      kind: 'call';
      name: string;
      args: Record<string, unknown>;
      end: number;
      trailingText: boolean;
      /** The output ended inside the call: its last value, or its closing tags, never came. */
      unclosed?: true;
    };

/**
 * A close marker that drifted (`</parameter1>`, `</parameter_x>`, a bare `</parameter`) at the
 * end of a value that the next tag closed: markup, not part of the value (SGLang's policy).
 */
const DRIFTED_END_PARAM = /\n?<\/parameter[^<>\n]*>?[ \t\r\n]*$/;

/** Closers that may follow a call's `</function>` by drift (see `afterFunction`). */
const DRIFTED_CLOSERS = [END_FN, END_INVOCATION];

/**
 * How far past the end of a call literal structure (`</parameter>`, `</function>`) can still
 * prove that the "end" was text inside a value. Prose after a call is held at most this long.
 */
export const TRAILING_LOOKAHEAD = 200;

/** How many undeclared parameters in a row are read ahead to believe the first (`closesCleanly`). */
const MAX_UNDECLARED_AHEAD = 8;

/**
 * Parses one Qwen3-Coder XML call from `s`, which starts at `<function=`. Structural
 * delimiters are told apart from literal tag text inside values (vLLM current policy):
 * `</parameter>` closes a value only when what follows is a fresh declared parameter, or the
 * end of the function followed by the end of the output or by another call. While the answer
 * depends on text not yet received, the result is `incomplete` (unless `final`).
 */
export function parseXmlCall(
  s: string,
  opts: { wrapped: boolean; final: boolean; schemas: ToolSchemas },
): XmlCallResult {
  try {
    const parser = new XmlCallParser(s, opts.wrapped, opts.final, opts.schemas);
    const result = parser.parse();
    const cut = parser.ranOut && !parser.functionClosed;
    return result.kind === 'call' && cut ? { ...result, unclosed: true } : result;
  } catch (e) {
    if (e === INCOMPLETE) return { kind: 'incomplete' };
    throw e;
  }
}

class XmlCallParser extends XmlScanner {
  private props: Record<string, unknown> | undefined;
  private readonly seen = new Set<string>();
  private trailingText = false;
  /** The arguments were given as a JSON object (see `jsonArguments`). */
  private jsonRead = false;
  /**
   * The call's `</function>` came: its arguments are whole, though the output ran out before
   * the block's `</tool_call>` (no call cut off at the token limit, see parseXmlCall).
   */
  functionClosed = false;

  constructor(
    s: string,
    private readonly wrapped: boolean,
    final: boolean,
    private readonly schemas: ToolSchemas,
  ) {
    super(s, final);
  }

  parse(): XmlCallResult {
    const { s } = this;
    const gt = s.indexOf('>', FN.length);
    const rawName = gt === -1 ? s.slice(FN.length) : s.slice(FN.length, gt);
    if (/[\n<]/.test(rawName)) return { kind: 'invalid', end: this.blockEnd(0) };
    if (gt === -1) return this.atEnd({ kind: 'invalid', end: s.length });
    const name = tagName(rawName);
    if (!(this.wrapped ? WRAPPED_NAME_OK : NAME_OK).test(name))
      return { kind: 'invalid', end: this.blockEnd(gt) };
    const params = this.schemas.get(name);
    const properties = params?.properties;
    this.props =
      typeof properties === 'object' && properties !== null
        ? (properties as Record<string, unknown>)
        : undefined;
    const args: Record<string, unknown> = {};
    let pos = gt + 1;
    for (;;) {
      const p = this.skipWs(pos);
      if (p >= s.length) return this.atEnd(this.done(name, args, s.length));
      if (s.startsWith(PARAM, p)) {
        const nameEnd = s.indexOf('>', p + PARAM.length);
        if (nameEnd === -1) return this.atEnd(this.done(name, args, s.length));
        const pname = tagName(s.slice(p + PARAM.length, nameEnd));
        this.seen.add(pname);
        const { valueEnd, next } = this.valueEnd(nameEnd + 1);
        let value = s.slice(nameEnd + 1, valueEnd);
        if (next === valueEnd) value = value.replace(DRIFTED_END_PARAM, '');
        // One newline each side is layout (NOTES.md §11); a CRLF counts as one.
        value = value.replace(/^\r?\n/, '').replace(/\r?\n$/, '');
        setOwn(args, pname, typeValue(value, ownValue(this.props, pname) as ParamSchema));
        pos = next;
        continue;
      }
      if (s[p] === '{' && this.seen.size === 0 && !this.jsonRead) {
        pos = this.jsonArguments(p, args);
        continue;
      }
      if (s.startsWith(END_FN, p)) {
        this.functionClosed = true;
        const end = this.afterFunction(p + END_FN.length);
        this.callOver(end);
        return this.done(name, args, end);
      }
      if (s.startsWith(END_CALL, p)) return this.done(name, args, p + END_CALL.length);
      // The next call begins where this one's `</function>` was left out.
      if (this.nextCallAt(p)) return this.done(name, args, p);
      if (!this.final && [PARAM, END_FN, END_CALL].some((t) => t.startsWith(s.slice(p))))
        throw INCOMPLETE;
      const nextTag = this.firstOf([PARAM, END_FN, END_CALL], p + 1);
      // Prose after the last parameter of a call never closed is text, not part of the call.
      if (nextTag === -1) return this.atEnd(this.done(name, args, this.seen.size ? pos : s.length));
      pos = nextTag;
    }
  }

  /**
   * Arguments written as one JSON object instead of parameters (Llama 3.1's custom tool format,
   * `<function=NAME>{"n": "5"}</function>`, which some Qwen outputs drift to); read into `args`
   * as written (mended by jsonrepair if need be). Returns where parsing continues.
   */
  private jsonArguments(at: number, args: Record<string, unknown>): number {
    this.jsonRead = true;
    let end = jsonObjectEnd(this.s, at);
    if (end === -1) end = this.atEnd(this.s.length);
    for (const [k, v] of Object.entries(callFrom('', this.s.slice(at, end)).args))
      setOwn(args, k, v);
    return end;
  }

  private done(name: string, args: Record<string, unknown>, end: number): XmlCallResult {
    return { kind: 'call', name, args, end, trailingText: this.trailingText };
  }

  /** Where a malformed block ends, so that it can be dropped whole. */
  private blockEnd(from: number): number {
    const closer = this.wrapped ? END_CALL : END_FN;
    const i = this.s.indexOf(closer, from);
    return i !== -1 ? i + closer.length : this.atEnd(this.s.length);
  }

  /** `<parameter=NAME>` at `at` opens a parameter that is declared (if known) and not yet seen. */
  private freshParam(at: number, afterClose = true): boolean {
    const { s } = this;
    if (!s.startsWith(PARAM, at)) {
      if (this.partialTag(at, [PARAM])) throw INCOMPLETE;
      return false;
    }
    const gt = s.indexOf('>', at + PARAM.length);
    if (gt === -1) {
      if (!this.final && !/[\n<]/.test(s.slice(at + PARAM.length))) throw INCOMPLETE;
      return false;
    }
    const pname = tagName(s.slice(at + PARAM.length, gt));
    if (this.seen.has(pname)) return false;
    if (this.props && Object.hasOwn(this.props, pname)) return true;
    if (!NAME_OK.test(pname)) return false;
    return !this.props || (afterClose && this.closesCleanly(gt + 1, new Set([pname])));
  }

  /**
   * An undeclared parameter is believed only when it looks well formed: its first
   * `</parameter>` is followed by a declared parameter, the end of the function, the end, or
   * another undeclared parameter (not one of `chain`, the undeclared ones already read ahead)
   * that is itself well formed.
   */
  private closesCleanly(from: number, chain: Set<string>): boolean {
    const { s } = this;
    const c = s.indexOf(END_PARAM, from);
    if (c === -1) return this.atEnd(true);
    const q = this.skipWs(c + END_PARAM.length);
    if (q >= s.length) return this.atEnd(true);
    if (s.startsWith(END_FN, q)) return this.closesCall(q);
    if (s.startsWith(END_CALL, q)) return this.callOver(q + END_CALL.length);
    if (s.startsWith(PARAM, q)) {
      const gt = s.indexOf('>', q + PARAM.length);
      if (gt === -1) return this.atEnd(false);
      const next = tagName(s.slice(q + PARAM.length, gt));
      if (this.seen.has(next) || chain.has(next)) return false;
      if (this.props !== undefined && Object.hasOwn(this.props, next)) return true;
      if (!NAME_OK.test(next) || chain.size >= MAX_UNDECLARED_AHEAD) return false;
      return this.closesCleanly(gt + 1, chain.add(next));
    }
    if (this.partialTag(q, [PARAM, END_FN, END_CALL])) throw INCOMPLETE;
    return false;
  }

  /**
   * A call of an active tool opens at `at` (`<function=NAME>`, or `<tool_call>` before it): after
   * a `</parameter>`, the model left out `</function>` and went on to its next call.
   */
  private nextCallAt(at: number): boolean {
    const { s } = this;
    let i = at;
    if (s.startsWith(OPEN_CALL, i)) i = this.skipWs(i + OPEN_CALL.length);
    if (!s.startsWith(FN, i)) {
      if (i > at && this.partialTag(i, [FN])) throw INCOMPLETE;
      return false;
    }
    const gt = s.indexOf('>', i + FN.length);
    const raw = s.slice(i + FN.length, gt === -1 ? undefined : gt);
    if (/[\n<]/.test(raw)) return false;
    if (gt === -1) return this.atEnd(false);
    return this.schemas.has(tagName(raw));
  }

  /** True when a `</function>` at `at` really ends the call (see class comment). */
  private closesCall(at: number): boolean {
    return this.callOver(this.afterFunction(at + END_FN.length));
  }

  /**
   * Index after `</function>` plus, when wrapped, the `</tool_call>` that should follow. Closers
   * that drifted in between (a doubled `</function>`, the `</function_invocation>` of an older
   * wrapper, as Qwen3.6 sometimes writes) belong to the call's end.
   */
  private afterFunction(i: number): number {
    let j = this.skipWs(i);
    let drift = false;
    for (let t; (t = DRIFTED_CLOSERS.find((c) => this.s.startsWith(c, j))); drift = true)
      j = this.skipWs(j + t.length);
    if (this.s.startsWith(END_CALL, j)) return j + END_CALL.length;
    if (
      this.partialTag(j, [END_CALL, ...DRIFTED_CLOSERS]) ||
      (j >= this.s.length && !this.final && this.wrapped)
    )
      throw INCOMPLETE;
    return drift ? j : i;
  }

  /** After the end of a call: end of output, another call, or prose with no more structure in it. */
  private callOver(i: number): boolean {
    const { s } = this;
    const j = this.skipWs(i);
    if (j >= s.length) return this.atEnd(true);
    if (s.startsWith(OPEN_CALL, j) || s.startsWith(FN, j)) return true;
    if (this.partialTag(j, [OPEN_CALL, FN, END_PARAM, END_FN, END_CALL])) throw INCOMPLETE;
    const horizon = i + TRAILING_LOOKAHEAD;
    const nextCall = this.firstOf([OPEN_CALL, FN], j, horizon + OPEN_CALL.length);
    const limit = Math.min(nextCall === -1 ? s.length : nextCall, horizon);
    const closer = this.firstOf([END_PARAM, END_FN], j, limit + END_PARAM.length);
    if (closer !== -1 && closer < limit) return false;
    if (nextCall === -1 && !this.final && s.length - i <= TRAILING_LOOKAHEAD) {
      this.trailingText = true;
    }
    return true;
  }

  /**
   * Finds where the value starting at `from` ends, and where parsing continues: after its
   * `</parameter>`, or at the tag that closes it implicitly (then `next === valueEnd`).
   */
  private valueEnd(from: number): { valueEnd: number; next: number } {
    const { s } = this;
    let k = from;
    let lastClose = -1;
    for (;;) {
      const c = s.indexOf('<', k);
      // Output over in a call never closed: its last `</parameter>` ended the value, and what
      // follows is prose (`<function=f><parameter=city>Paris</parameter> Let me check.`).
      if (c === -1)
        return this.atEnd(
          lastClose === -1
            ? { valueEnd: s.length, next: s.length }
            : { valueEnd: lastClose, next: lastClose + END_PARAM.length },
        );
      if (s.startsWith(END_PARAM, c)) {
        lastClose = c;
        const q = this.skipWs(c + END_PARAM.length);
        if (q >= s.length) return this.atEnd({ valueEnd: c, next: q });
        if (this.freshParam(q)) return { valueEnd: c, next: c + END_PARAM.length };
        if (s.startsWith(END_FN, q) && this.closesCall(q))
          return { valueEnd: c, next: c + END_PARAM.length };
        // A bare call's too: it may have been the second of a block whose `</function>` was left out.
        if (s.startsWith(END_CALL, q) && this.callOver(q + END_CALL.length))
          return { valueEnd: c, next: c + END_PARAM.length };
        if (this.nextCallAt(q)) return { valueEnd: c, next: c + END_PARAM.length };
        if (this.partialTag(q, [PARAM, END_FN, END_CALL, FN, OPEN_CALL])) throw INCOMPLETE;
      } else if (s.startsWith(PARAM, c)) {
        if (this.freshParam(c, false)) return { valueEnd: c, next: c };
      } else if (s.startsWith(END_FN, c)) {
        if (this.closesCall(c)) return { valueEnd: c, next: c };
      } else if (s.startsWith(END_CALL, c)) {
        if (this.wrapped && this.callOver(c + END_CALL.length)) return { valueEnd: c, next: c };
      } else if (this.partialTag(c, [END_PARAM, PARAM, END_FN, END_CALL])) {
        throw INCOMPLETE;
      }
      k = c + 1;
    }
  }
}
