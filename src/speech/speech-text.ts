/**
 * Light clean-up of a sentence before synthesis (pure): markdown symbols, URLs and emoji are
 * not read aloud. Returns '' when nothing speakable is left.
 */
export function speakable(sentence: string): string {
  return sentence
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/\bhttps?:\/\/\S+/gi, ' ')
    .replace(/\bwww\.\S+/gi, ' ')
    .replace(/\p{Extended_Pictographic}|[\u{1F1E6}-\u{1F1FF}]|\u{FE0F}|\u{200D}/gu, '')
    .replace(/(\*\*|__|\*|`|~~|^#{1,6}\s*|^>\s*|^\s*[-*+]\s+)/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
}
