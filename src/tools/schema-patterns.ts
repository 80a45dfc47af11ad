/**
 * The regular expressions of schemas' `pattern`s, as the argument check runs them. JSON Schema's
 * are ECMA-262's, with Unicode (`u`), but real documents hold others: AWS's and many written by
 * hand escape `-` and `_` in a class (`^[a-zA-Z0-9\-\_]+$`, refused with `u`), Java's POSIX
 * classes (`\p{Alnum}`). Ajv refused a whole schema for one such pattern, and every argument of
 * the tool went unchecked. Each pattern is now read the first way that works: with Unicode,
 * without (when it names no `\p` class, which would mean a letter p there), with Java's classes
 * as JavaScript writes them (`\p{Alnum}` as ranges, `\p{Han}` as `\p{Script=Han}`); a pattern none of these reads is not checked (a warning at load says
 * so). Pure: no Nest import.
 */

/** Java's POSIX classes (ASCII, as Java has them by default): their ranges. */
const POSIX: Record<string, string> = {
  Lower: 'a-z',
  Upper: 'A-Z',
  ASCII: '\\x00-\\x7F',
  Alpha: 'a-zA-Z',
  Digit: '0-9',
  Alnum: 'a-zA-Z0-9',
  Punct: '!-\\/:-@\\[-`{-~',
  Graph: '!-~',
  Print: ' -~',
  Blank: ' \\t',
  Cntrl: '\\x00-\\x1F\\x7F',
  XDigit: '0-9a-fA-F',
  Space: ' \\t\\n\\x0B\\f\\r',
};

/**
 * A Java class name as JavaScript names it with Unicode: itself (`L`, `Letter`), without Java's
 * `Is` (`IsLetter`, `IsAlphabetic`), or a script (`Han`, `IsLatin`: `Script=Han`).
 */
function unicodeName(name: string): string | undefined {
  const bare = name.replace(/^Is(?=[A-Z])/, '');
  for (const candidate of [name, bare, `Script=${name}`, `Script=${bare}`])
    if (compiled(`\\p{${candidate}}`, 'u')) return candidate;
  return undefined;
}

/**
 * `pattern` with Java's `\p{…}` classes as JavaScript reads them: POSIX ones (`\p{Alnum}`) as
 * ranges, Unicode ones by their JavaScript names; undefined if one cannot be so.
 */
function withJavaClasses(pattern: string): string | undefined {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const named = /^\\([pP])\{(\w+)\}/.exec(pattern.slice(i));
      const ranges = named ? POSIX[named[2]!] : undefined;
      if (named && ranges === undefined) {
        const name = unicodeName(named[2]!);
        if (name === undefined) return undefined;
        out += `\\${named[1]}{${name}}`;
        i += named[0].length - 1;
        continue;
      }
      if (named && ranges !== undefined) {
        const negated = named[1] === 'P';
        if (inClass && negated) return undefined;
        out += inClass ? ranges : `[${negated ? '^' : ''}${ranges}]`;
        i += named[0].length - 1;
        continue;
      }
      out += pattern.slice(i, i + 2);
      i++;
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
    out += c;
  }
  return out;
}

function compiled(source: string, flags: string): RegExp | undefined {
  try {
    return new RegExp(source, flags);
  } catch {
    return undefined;
  }
}

/**
 * Whether a class of `pattern` holds another, or `&&`: Java's union and intersection
 * (`[\p{Print}&&[^|:]]`), which JavaScript would read, without Unicode, as other characters.
 */
function javaClasses(pattern: string): boolean {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') i++;
    else if (c === '[' && inClass) return true;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '&' && inClass && pattern[i + 1] === '&') return true;
  }
  return false;
}

/** The expression `pattern` is read as, or undefined when it cannot be read (not checked). */
export function patternRegExp(pattern: string): RegExp | undefined {
  const unicode = compiled(pattern, 'u');
  if (unicode) return unicode;
  if (javaClasses(pattern)) return undefined;
  const named = /\\[pP]\{/.test(pattern);
  const legacy = named ? undefined : compiled(pattern, '');
  if (legacy) return legacy;
  const posix = named ? withJavaClasses(pattern) : undefined;
  return posix === undefined ? undefined : (compiled(posix, 'u') ?? compiled(posix, ''));
}

const ANY = { test: () => true };

/** Ajv's `code.regExp`: patterns read as patternRegExp reads them (one it cannot read takes all). */
export const lenientRegExp = Object.assign(
  (pattern: string): { test: (s: string) => boolean } => patternRegExp(pattern) ?? ANY,
  { code: 'lenientRegExp' },
);

/** The `pattern`s (and `patternProperties` names) of `schema`, at any depth, that cannot be read. */
export function unreadPatterns(schema: unknown, found: string[] = [], depth = 0): string[] {
  if (typeof schema !== 'object' || schema === null || depth > 64) return found;
  if (Array.isArray(schema)) {
    for (const item of schema) unreadPatterns(item, found, depth + 1);
    return found;
  }
  const object = schema as Record<string, unknown>;
  for (const [key, value] of Object.entries(object)) {
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') continue;
    if (key === 'pattern' && typeof value === 'string' && !patternRegExp(value)) found.push(value);
    if (key === 'patternProperties' && typeof value === 'object' && value !== null)
      for (const name of Object.keys(value)) if (!patternRegExp(name)) found.push(name);
    unreadPatterns(value, found, depth + 1);
  }
  return found;
}
