/**
 * The first number in what a user said or typed: digits as speech-to-text writes most numbers
 * ("3", "1,250", "2.5", "-4"), or English words as it writes some ("three", "twenty-five",
 * "two hundred and ten"). Pure: no Nest import.
 */

const UNITS: Record<string, number> = Object.fromEntries(
  [
    'zero',
    'one',
    'two',
    'three',
    'four',
    'five',
    'six',
    'seven',
    'eight',
    'nine',
    'ten',
    'eleven',
    'twelve',
    'thirteen',
    'fourteen',
    'fifteen',
    'sixteen',
    'seventeen',
    'eighteen',
    'nineteen',
  ].map((word, n) => [word, n]),
);
const TENS: Record<string, number> = Object.fromEntries(
  ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'].map((word, n) => [
    word,
    (n + 2) * 10,
  ]),
);
const SCALES: Record<string, number> = { thousand: 1000, million: 1_000_000 };

/**
 * A comma between groups of three digits is a thousands separator ("1,250"); any other comma is
 * a decimal one ("2,5", as most of Europe writes it).
 */
const DIGITS = /(?<![\p{L}\p{N}])[-−]?\d+(?:(?:,\d{3})+(?!\d)|[.,]\d+)?/u;

function fromDigits(match: string): number {
  const sign = /^[-−]/.test(match) ? -1 : 1;
  const body = match.replace(/^[-−]/, '');
  const number = /,\d{3}(?:,|$)/.test(body) ? body.replaceAll(',', '') : body.replace(',', '.');
  return sign * Number(number);
}

/** The number the first run of number words makes, if any. */
function fromWords(text: string): number | undefined {
  const words = text
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((w) => w !== '');
  let total = 0;
  let current = 0;
  let seen = false;
  for (const word of words) {
    if (word in UNITS || word in TENS) current += UNITS[word] ?? TENS[word]!;
    else if (word === 'hundred' && seen) current *= 100;
    else if (word in SCALES && seen) {
      total += current * SCALES[word]!;
      current = 0;
    } else if (word === 'and' && seen) continue;
    else if (seen) break;
    else continue;
    seen = true;
  }
  return seen ? total + current : undefined;
}

export function readNumber(text: string): number | undefined {
  const digits = DIGITS.exec(text);
  if (digits) return fromDigits(digits[0]);
  return fromWords(text);
}
