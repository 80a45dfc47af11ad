/**
 * The words of what a user said or typed, as answers are compared with phrases and titles:
 * lower case, punctuation to spaces, apostrophes kept ("don't"). Pure: no Nest import.
 */
export function plainWords(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[’‘`]/g, "'")
    .replace(/[^\p{L}\p{N}\p{M}']+/gu, ' ')
    .trim()
    .split(' ')
    .filter((w) => w !== '');
}
