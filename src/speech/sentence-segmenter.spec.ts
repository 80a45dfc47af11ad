import fc from 'fast-check';
import { SentenceSegmenter } from './sentence-segmenter.js';
import { speakable } from './speech-text.js';

function segment(text: string, size = 3, max?: number): string[] {
  const s = new SentenceSegmenter(max);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(...s.push(text.slice(i, i + size)));
  return [...out, ...s.flush()];
}

describe('SentenceSegmenter', () => {
  it.each([
    [
      'en',
      'Hello there. It is 3.5 degrees in Paris! Is that cold?! Dr. Smith says so... Really.',
      [
        'Hello there.',
        'It is 3.5 degrees in Paris!',
        'Is that cold?!',
        'Dr. Smith says so...',
        'Really.',
      ],
    ],
    ['en quotes', 'He said "stop." Then he left.', ['He said "stop."', 'Then he left.']],
    [
      'it',
      'Ciao! Il sig. Rossi arriva alle 10.30. Va bene?',
      ['Ciao!', 'Il sig. Rossi arriva alle 10.30.', 'Va bene?'],
    ],
    [
      'es',
      '¿Qué tiempo hace en Madrid? ¡Hace sol! La Sra. García dice 2.5 grados.',
      ['¿Qué tiempo hace en Madrid?', '¡Hace sol!', 'La Sra. García dice 2.5 grados.'],
    ],
    ['ellipsis char', 'Well… maybe. Yes', ['Well…', 'maybe.', 'Yes']],
    ['initials', 'J. R. R. Tolkien wrote it. Fine.', ['J. R. R. Tolkien wrote it.', 'Fine.']],
    ['zh', '今天天气很好。明天会下雨吗？会的！', ['今天天气很好。', '明天会下雨吗？', '会的！']],
    [
      'ja',
      '「はい。」と彼は言った。東京は晴れです。',
      ['「はい。」', 'と彼は言った。', '東京は晴れです。'],
    ],
    ['hi', 'मौसम अच्छा है। कल बारिश होगी।', ['मौसम अच्छा है।', 'कल बारिश होगी।']],
    ['ar', 'هل الجو بارد؟ نعم.', ['هل الجو بارد؟', 'نعم.']],
    ['acronym', 'I live in the USA. It is big.', ['I live in the USA.', 'It is big.']],
    [
      'it abbreviations',
      'Mele, pere ecc. sono frutti. Il dott. Bianchi lo sa.',
      ['Mele, pere ecc. sono frutti.', 'Il dott. Bianchi lo sa.'],
    ],
    [
      'paragraphs and lists',
      'Here are the options:\n- the train\n- the bus\n\nWhich one do you want',
      ['Here are the options:', '- the train', '- the bus', 'Which one do you want'],
    ],
    [
      'CRLF paragraphs, and blank lines holding spaces',
      'The train leaves at six\r\n\r\nThe bus at seven\n  \nWhich one',
      ['The train leaves at six', 'The bus at seven', 'Which one'],
    ],
  ])('splits %s text the same however it streams', (_l, text, expected) => {
    expect(segment(text, text.length)).toEqual(expected);
    expect(segment(text, 1)).toEqual(expected);
    expect(segment(text, 4)).toEqual(expected);
  });

  it('waits for the next character before deciding on a full stop', () => {
    const s = new SentenceSegmenter();
    expect(s.push('It is 3.')).toEqual([]);
    expect(s.push('5 now. And')).toEqual(['It is 3.5 now.']);
    expect(s.flush()).toEqual(['And']);
  });

  it('caps a long run without a full stop, cutting at a comma', () => {
    const text = `${'word '.repeat(20)}, ${'more '.repeat(40)}`;
    const parts = segment(text, 5, 120);
    expect(parts.every((p) => p.length <= 120)).toBe(true);
    expect(parts[0]!.endsWith(',')).toBe(true);
    expect(parts.join(' ').replace(/\s+/g, ' ')).toBe(text.trim().replace(/\s+/g, ' '));
  });

  it('caps a long run with no comma at a space, never inside a word', () => {
    const text = 'alpha beta gamma delta '.repeat(12);
    const parts = segment(text, 5, 100);
    expect(parts.length).toBeGreaterThan(2);
    const words = new Set(['alpha', 'beta', 'gamma', 'delta']);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(100);
      expect(part.split(' ').every((w) => words.has(w))).toBe(true);
    }
  });

  it('caps a long Chinese run without a full stop at its last comma', () => {
    const text = `${'很'.repeat(50)}，${'好'.repeat(100)}`;
    expect(segment(text, 7, 120)[0]).toBe(`${'很'.repeat(50)}，`);
  });

  it('loses no text and gives the same sentences for any split', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            'Hi',
            ' ',
            '.',
            '!',
            '?',
            '3',
            '…',
            'Dr',
            '"',
            ',',
            'word',
            '\n',
            '。',
            '好',
            '」',
          ),
          { maxLength: 40 },
        ),
        fc.integer({ min: 1, max: 6 }),
        (parts, size) => {
          const text = parts.join('');
          const out = segment(text, size);
          expect(out).toEqual(segment(text, text.length || 1));
          expect(out.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
        },
      ),
    );
  });
});

describe('speakable', () => {
  it('drops markdown symbols, URLs and emoji', () => {
    expect(
      speakable('**Sunny** in _Rome_ ☀️ — see https://wttr.in/Rome or [the map](http://x.y).'),
    ).toBe('Sunny in _Rome_ — see or the map.');
    expect(speakable('# Title')).toBe('Title');
    expect(speakable('- item one')).toBe('item one');
    expect(speakable('🎉🎉')).toBe('');
    // An image is read by its description; a bare www address is dropped like a URL.
    expect(speakable('Here: ![a chart of rain](http://x/c.png) for today.')).toBe(
      'Here: a chart of rain for today.',
    );
    expect(speakable('Book at www.example.com/book today.')).toBe('Book at today.');
    // Flags, emoji joined into one (a family), and variation selectors leave nothing behind.
    expect(speakable('Flags 🇮🇹🇫🇷 and 👨‍👩‍👧 here, done ✔︎ now.')).toBe('Flags and here, done now.');
    expect(speakable('> Quoted advice.')).toBe('Quoted advice.');
    // Formatting tags are not read; a comparison is.
    expect(speakable('It is <b>sunny</b>,<br/>21 <EM>degrees</EM>.')).toBe(
      'It is sunny, 21 degrees.',
    );
    expect(speakable('If x < y and y > z, stop.')).toBe('If x < y and y > z, stop.');
    expect(speakable('Now ~~20~~ 15 euros, __really__.')).toBe('Now 20 15 euros, really.');
    expect(speakable('| City | Weather |\n|---|:---:|\n| Rome | 21°C |\n| Oslo | 3°C |')).toBe(
      'City, Weather. Rome, 21°C. Oslo, 3°C.',
    );
  });
});
