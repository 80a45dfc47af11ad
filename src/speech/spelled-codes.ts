/**
 * Numbers and codes a caller must note down, as a speech engine should read them: one character
 * at a time. A booking reference "48213977" read as "forty-eight million two hundred…", a phone
 * number "+39 06 1234 5678" read as four numbers, or "XK429P" read as a word, cannot be written
 * down. Only what is clearly such a code is spelled (SPEECH_SPELL_CODES); amounts, years, times
 * and dates are left to the engine. Pure: no Nest import.
 */

/** Characters one at a time, spaced: "429" is "4 2 9". */
const spaced = (chars: string) => [...chars].join(' ');

/**
 * An international phone number: "+", then digits in groups separated by a space, dash, dot or
 * parentheses, eight digits or more in all. Its groups are read apart, a comma between them.
 */
const PHONE = /(?<![\w+])\+\(?\d[\d\s().-]{6,}\d(?![\w])/g;
/** A run of six digits or more, not part of a decimal or grouped number, nor after a currency sign. */
const DIGITS = /(?<![\d.,\p{Sc}]|\p{Sc}\s)\d{6,}(?![.,]?\d)/gu;
/**
 * A code of capital letters and digits mixed, three digits or more and five characters or more,
 * dashes allowed between its parts: "ABC-123", "XK429P", "7QF93K2" (not "COVID-19", "MP3", "A320").
 */
const CODE =
  /(?<![\p{L}\d-])(?=[A-Z\d-]*[A-Z])(?=(?:[A-Z-]*\d){3})[A-Z\d]+(?:-[A-Z\d]+)*(?![\p{L}\d-])/gu;

export function spellCodes(text: string): string {
  return text
    .replace(PHONE, (phone) => {
      const groups = phone.slice(1).match(/\d+/g)!;
      if (groups.join('').length < 8) return phone;
      return `+${groups.map(spaced).join(', ')}`;
    })
    .replace(DIGITS, (digits) => (/0{3}$/.test(digits) ? digits : spaced(digits)))
    .replace(CODE, (code) =>
      code.replace(/-/g, '').length < 5 ? code : code.split('-').map(spaced).join(', '),
    );
}
