import type { ToolSchemas } from './qwen-xml-call.js';
import { END_FN, FN, PARAM } from './tags.js';

const WATCHED = [PARAM, FN, END_FN];
const AFTER_DRIFTED_NAME = [PARAM, END_FN];

/**
 * Mends a drift of Qwen3.6 before the text is parsed: the call's name written as a parameter,
 * with no `<tool_call>` or `<function=` around it —
 *
 *     <parameter=bash>
 *     <parameter=command>
 *     ls
 *     </parameter>
 *     </function>
 *
 * Outside a function, `<parameter=NAME>` where NAME is an active tool and the next tag (after
 * whitespace) is another `<parameter=` or `</function>` is read as `<function=NAME>`. Inside a
 * function nothing is touched, so parameter values keep any such text. Only what may still be a
 * watched tag is held back (a suffix such as `<param`, or a drifted name whose next tag has not
 * arrived yet).
 */
export class ParameterNameDrift {
  private held = '';
  private insideFunction = false;

  constructor(private readonly schemas: ToolSchemas) {}

  /** The text that is certain now, mended. */
  push(content: string): string {
    return this.run(this.held + content, false);
  }

  /** End of output: whatever was held, as it is. */
  end(): string {
    return this.run(this.held, true);
  }

  private run(s: string, final: boolean): string {
    this.held = '';
    let out = '';
    let from = 0;
    for (let i = s.indexOf('<'); i !== -1; i = s.indexOf('<', i + 1)) {
      if (!final && WATCHED.some((t) => t.length > s.length - i && t.startsWith(s.slice(i)))) {
        this.held = s.slice(i);
        return out + s.slice(from, i);
      }
      if (s.startsWith(FN, i)) this.insideFunction = true;
      else if (s.startsWith(END_FN, i)) this.insideFunction = false;
      else if (!this.insideFunction && s.startsWith(PARAM, i)) {
        const mended = this.drifted(s, i, final);
        if (mended === 'wait') {
          this.held = s.slice(i);
          return out + s.slice(from, i);
        }
        if (mended !== undefined) {
          out += s.slice(from, i) + `${FN}${mended.name}>`;
          from = mended.end;
          i = mended.end - 1;
          this.insideFunction = true;
        }
      }
    }
    return out + s.slice(from);
  }

  /** The drifted opener at `i`: its name and where it ends; `wait` while that is undecided. */
  private drifted(
    s: string,
    i: number,
    final: boolean,
  ): { name: string; end: number } | 'wait' | undefined {
    const gt = s.indexOf('>', i);
    const raw = s.slice(i + PARAM.length, gt === -1 ? s.length : gt);
    if (/[<\n]/.test(raw)) return undefined;
    if (gt === -1) return final ? undefined : 'wait';
    const name = raw.trim();
    if (!this.schemas.has(name)) return undefined;
    const next = s.slice(gt + 1).trimStart();
    if (AFTER_DRIFTED_NAME.some((t) => next.startsWith(t))) return { name, end: gt + 1 };
    if (!final && AFTER_DRIFTED_NAME.some((t) => t.startsWith(next))) return 'wait';
    return undefined;
  }
}
