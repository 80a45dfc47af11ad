/**
 * The numbers in what a user said or typed: digits as speech-to-text writes most numbers ("3",
 * "1,250", "2.5", "-4"), or words as it writes some, in the session's language or English
 * ("three", "twenty-five", "two hundred and ten", "ventitré", "treinta y dos", "quatre-vingt-dix",
 * "dreiundzwanzig"). Pure: no Nest import.
 */
import { fold } from '../common/plain-words.js';
import { answerWords, type AnswerWords, type NumberWord } from './answer-words.js';

/**
 * Digits, or a word. As English writes them, a comma between groups of three digits is a
 * thousands separator ("1,250.5"), any other a decimal one ("2,5"); where a decimal comma is
 * written (`decimalComma`: Italian, Spanish, French, Portuguese, German), a point or a space
 * between groups of three digits is the thousands separator ("1.250,5", "1 250") and a comma
 * the decimal one. A point before fewer or more digits is a decimal point in either ("2.5").
 */
const TOKENS = {
  point: /(?<![\p{L}\p{N}])[-−]?\d+(?:(?:,\d{3})+(?!\d)(?:\.\d+)?|[.,]\d+)?|[\p{L}\p{M}]+/gu,
  comma:
    /(?<![\p{L}\p{N}])[-−]?\d+(?:(?:[. \u00A0\u202F]\d{3})+(?!\d)(?:,\d+)?|[.,]\d+)?|[\p{L}\p{M}]+/gu,
};

function fromDigits(match: string, decimalComma: boolean): number {
  const sign = /^[-−]/.test(match) ? -1 : 1;
  const body = match.replace(/^[-−]/, '');
  const grouped = decimalComma ? /[. \u00A0\u202F]\d{3}(?!\d)/ : /,\d{3}(?!\d)/;
  const number = grouped.test(body)
    ? body.replace(decimalComma ? /[. \u00A0\u202F]/g : /,/g, '').replace(',', '.')
    : body.replace(',', '.');
  return sign * Number(number);
}

/**
 * Words after "one" that ask for time rather than give a number ("one moment", "un attimo",
 * "einen Augenblick"), in the languages of answer-words.ts.
 */
const MOMENT = new Set(['moment', 'sec', 'momento', 'attimo', 'instant', 'instante', 'augenblick']);

/** A word, or digits (a number of their own), or a word that is no number. */
type Token = NumberWord | { digits: number } | undefined;

/** A number said: its value, and whether it is a lone article before a word ("un tavolo"). */
interface Said {
  value: number;
  article: boolean;
}

function tokens(text: string, words: AnswerWords): Token[] {
  const out: Token[] = [];
  const pattern = words.decimalComma ? TOKENS.comma : TOKENS.point;
  const found = [...text.normalize('NFKC').matchAll(pattern)].map((m) => m[0]);
  for (let i = 0; i < found.length; i++) {
    const token = found[i]!;
    if (/\d/.test(token)) {
      out.push({ digits: fromDigits(token, words.decimalComma) });
      continue;
    }
    const word = fold(token);
    // Words written with a hyphen ("quatre-vingt") are one number.
    const joined = i + 1 < found.length && words.numbers.get(`${word}-${fold(found[i + 1]!)}`);
    if (joined) {
      out.push(joined);
      i++;
      continue;
    }
    const numbers = wordNumbers(word, words);
    // "Più o meno cinque" is about five, not minus five.
    const about = numbers?.[0]?.kind === 'minus' && i > 0 && fold(found[i - 1]!) === words.or;
    // "One moment" asks the user's question to wait: no number in it.
    const wait =
      numbers?.length === 1 &&
      numbers[0]!.value === 1 &&
      i + 1 < found.length &&
      MOMENT.has(fold(found[i + 1]!));
    out.push(...(numbers && !about && !wait ? numbers : [undefined]));
  }
  return out;
}

/** The digits said after a decimal point, from `list[from]` on ("five six", "twenty five"). */
function decimals(list: Token[], from: number): { digits: string; end: number } {
  let digits = '';
  let i = from;
  for (; i < list.length; i++) {
    const token = list[i];
    if (!token || !('kind' in token) || token.article) break;
    if (token.kind === 'unit' && token.value < 10) digits += String(token.value);
    else if (token.kind === 'tens' && token.value >= 20) {
      const unit = list[i + 1];
      const ones =
        unit && 'kind' in unit && unit.kind === 'unit' && unit.value < 10 ? unit.value : 0;
      digits += String(token.value + ones);
      if (ones) i++;
    } else break;
  }
  return { digits, end: i };
}

/** The number words `word` is, or is written of ("ventitré": "venti", "tre"). */
function wordNumbers(word: string, words: AnswerWords): NumberWord[] | undefined {
  const number = words.numbers.get(word);
  if (number) return [number];
  return words.compounds ? parts(word, words) : undefined;
}

function parts(word: string, words: AnswerWords): NumberWord[] | undefined {
  for (let length = word.length; length >= 2; length--) {
    const part = words.numbers.get(word.slice(0, length));
    if (!part || part.kind === 'point' || part.kind === 'minus') continue;
    if (part.kind === 'and' && !part.unitAndTens) continue;
    const plain: NumberWord = { kind: part.kind, value: part.value };
    if (part.unitAndTens) plain.unitAndTens = true;
    if (length === word.length) return [plain];
    const rest = parts(word.slice(length), words);
    if (rest) return [plain, ...rest];
  }
  return undefined;
}

interface Run {
  total: number;
  current: number;
  last: NumberWord;
  /** The "and" just read, if any: the number goes on only if the next word joins it. */
  and: NumberWord | undefined;
  article: boolean;
  /** -1 after "minus". */
  sign: number;
  /** What was said after its decimal point ("point five": 0.5). */
  fraction: number;
}

/** Whether `next` goes on with the number `run` makes ("twenty" "one"; "cento" "venti"). */
function joins(run: Run, next: NumberWord): boolean {
  const { last, current, and } = run;
  const n = next.value;
  switch (next.kind) {
    case 'unit':
    case 'tens':
    case 'hundreds':
      if (last.kind === 'tens') return n < 20 && next.kind !== 'hundreds' && current % 10 === 0;
      if (last.kind === 'hundred' || last.kind === 'hundreds')
        return n < 100 && current % 100 === 0;
      if (last.kind === 'scale') return current === 0;
      return (
        last.kind === 'unit' && !!and?.unitAndTens && next.kind === 'tens' && current % 100 < 10
      );
    case 'hundred':
      // "three hundred", "mille e cento".
      if (last.kind === 'scale') return current === 0;
      return !and && (last.kind === 'unit' || last.kind === 'tens') && current < 100;
    case 'scale':
      return !and && current > 0 && current < 1000;
    case 'and':
    case 'point':
    case 'minus':
      return false;
  }
}

function add(run: Run, next: NumberWord): void {
  if (next.kind === 'hundred') run.current = (run.current || 1) * 100;
  else if (next.kind === 'scale') {
    run.total += run.current * next.value;
    run.current = 0;
  } else run.current += next.value;
  run.last = next;
  run.and = undefined;
  run.article = false;
}

/** The numbers said, in order. */
function numbers(text: string, language: string): Said[] {
  const words = answerWords(language);
  const list = tokens(text, words);
  const out: Said[] = [];
  let run: Run | undefined;
  let sign = 1;
  // `beforeWord`: the number ends at a word that is no number ("una persona", "ein Tisch").
  const close = (beforeWord: boolean) => {
    if (!run) return;
    const value = run.sign * (run.total + run.current + run.fraction);
    out.push({ value, article: run.article && beforeWord });
    run = undefined;
  };
  for (let i = 0; i < list.length; i++) {
    const token = list[i];
    const signed = sign;
    sign = 1;
    if (token && 'digits' in token) {
      close(false);
      out.push({ value: signed * token.digits, article: false });
    } else if (!token) close(true);
    else if (token.kind === 'minus') {
      close(false);
      sign = -1;
    } else if (token.kind === 'point') {
      const after = run ? decimals(list, i + 1) : { digits: '', end: i };
      if (run && after.digits !== '') {
        run.fraction = Number(`0.${after.digits}`);
        i = after.end - 1;
      }
      close(after.digits === '');
    } else if (token.kind === 'and') {
      if (run && !run.and) run.and = token;
      else close(false);
    } else if (run && joins(run, token)) add(run, token);
    else {
      close(false);
      const article = !!token.article;
      run = {
        total: 0,
        current: 0,
        last: token,
        and: undefined,
        article,
        sign: signed,
        fraction: 0,
      };
      if (token.kind === 'scale') run.total = token.value;
      else run.current = token.kind === 'hundred' ? 100 : token.value;
    }
  }
  close(false);
  return out;
}

/**
 * The numbers said, in order; an article said before a word ("un tavolo per quattro") only
 * when no other number is, and `articles` allows it ("una persona" is one person, "una birra"
 * names no choice's place).
 */
export function readNumbers(text: string, language = 'en', articles = true): number[] {
  const said = numbers(text, language);
  const plain = said.filter((s) => !s.article);
  return (plain.length > 0 || !articles ? plain : said).map((s) => s.value);
}

/** The first number said, if any (`articles`: as readNumbers). */
export function readNumber(text: string, language = 'en', articles = true): number | undefined {
  return readNumbers(text, language, articles)[0];
}
