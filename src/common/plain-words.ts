/**
 * The words of what a user said or typed, as answers are compared with phrases and titles:
 * lower case, without accents ("sì" is "si", "Caffè" is "caffe"), punctuation to spaces,
 * apostrophes kept ("don't"). Pure: no Nest import.
 */
export function plainWords(text: string): string[] {
  return fold(text.normalize('NFKC'))
    .replace(/[’‘`]/g, "'")
    .replace(/[^\p{L}\p{N}\p{M}']+/gu, ' ')
    .trim()
    .split(' ')
    .filter((w) => w !== '');
}

/**
 * A word as it is looked up: lower case, without accents ("tré" is "tre"), "ß" as "ss". Only
 * the accents of Latin, Greek and Cyrillic letters go: the vowel signs of other scripts
 * (Devanagari's) are part of their words.
 */
export function fold(word: string): string {
  return word
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .normalize('NFC')
    .toLowerCase()
    .replace(/ß/g, 'ss');
}

/**
 * A name as names written another way are matched: its letters and digits only, folded (see
 * fold): `get_weather`, `getWeather`, `Get-Weather` are all "getweather", "phone number" is
 * "phonenumber".
 */
export function nameKey(name: string): string {
  return fold(name).replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * The one value of an `enum` that `text` is but for case, accents, spaces, `_` and `-` between
 * words ("Dinner", "dine in" for `dine_in`); undefined when none is, or several are.
 */
export function enumValueOf(values: readonly unknown[], text: string): string | undefined {
  const key = enumKey(text);
  const same = values.filter((v): v is string => typeof v === 'string' && enumKey(v) === key);
  return same.length === 1 ? same[0] : undefined;
}

function enumKey(value: string): string {
  return fold(value)
    .replace(/(?<=[\p{L}\p{N}])[\s_-]+(?=[\p{L}\p{N}])/gu, ' ')
    .trim();
}
