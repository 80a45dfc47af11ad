/**
 * Light clean-up of a sentence before synthesis (pure): markdown symbols, formatting tags, URLs
 * and emoji are not read aloud, table cells are read as a list. Returns '' when nothing speakable is left.
 */
export function speakable(sentence: string): string {
  return (
    sentence
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
      .replace(/\bhttps?:\/\/\S+/gi, ' ')
      .replace(/\bwww\.\S+/gi, ' ')
      // The formatting tags a model writes now and then (`<b>`, `<br/>`), never read aloud.
      .replace(
        /<\/?(?:b|i|u|s|em|strong|br|p|span|sup|sub|small|mark|code|div)(?:\s[^<>]*)?\/?>/gi,
        ' ',
      )
      .replace(/\p{Extended_Pictographic}|[\u{1F1E6}-\u{1F1FF}]|[\u{FE0E}\u{FE0F}]|\u{200D}/gu, '')
      .replace(/(\*\*|__|\*|`|~~|^#{1,6}\s*|^>\s*|^\s*[-*+]\s+)/gm, '')
      // Tables: the rule under the header is dropped, the cells are read as a list.
      .replace(/^\s*\|?(\s*:?-{2,}:?\s*\|)+(\s*:?-{2,}:?\s*)?$/gm, ' ')
      .replace(/^\s*\|\s*/gm, ' ')
      .replace(/\s*\|\s*$/gm, '. ')
      .replace(/\s*\|\s*/g, ', ')
      .replace(/\s+/g, ' ')
      .replace(/ ([,.!?;:])/g, '$1')
      .trim()
  );
}

/**
 * Code in Markdown fences is not read aloud, even when the fence opens in one sentence and
 * closes several sentences later (each sentence is synthesised on its own).
 */
export class CodeFences {
  private inside = false;

  /** `sentence` without what lies inside fences, the state carried over to the next sentence. */
  outside(sentence: string): string {
    let out = '';
    sentence.split('```').forEach((part, i) => {
      if (i > 0) this.inside = !this.inside;
      if (!this.inside) out += part;
    });
    return out;
  }
}
