import { responseText } from './response-text.js';

const text = (bytes: Buffer, contentType?: string, cut = false) =>
  responseText({ bytes, contentType, cut });

describe('responseText', () => {
  it('decodes text in the charset the response declares', () => {
    expect(text(Buffer.from('café', 'latin1'), 'text/plain; charset=ISO-8859-1')).toEqual({
      text: 'café',
      binary: false,
      html: false,
    });
    const sjis = Buffer.from([0x93, 0x8c, 0x8b, 0x9e]); // 東京 in Shift_JIS
    // An HTML page's markup, decoded, for htmlText to read.
    expect(text(sjis, 'text/html;charset="Shift_JIS"')).toEqual({
      text: '東京',
      binary: false,
      html: true,
    });
    expect(text(Buffer.from('<p>x</p>'), 'application/xhtml+xml').html).toBe(true);
    expect(text(Buffer.from('{"t":"21°C"}'), 'application/json').text).toBe('{"t":"21°C"}');
    expect(text(Buffer.from('<a>ü</a>'), 'application/atom+xml; charset=utf-8').text).toBe(
      '<a>ü</a>',
    );
    // windows-1252, also under the labels latin1 and iso-8859-1 (WHATWG): €, curly quotes, dashes.
    const cp1252 = Buffer.from([0x80, 0x20, 0x93, 0x68, 0x69, 0x94, 0x20, 0x96, 0x20, 0xe9]);
    for (const label of ['windows-1252', 'latin1', 'ISO-8859-1'])
      expect(text(cp1252, `text/plain; charset=${label}`).text).toBe('€ “hi” – é');
    // Media types and parameter names are case-insensitive (RFC 9110), as servers write them.
    expect(text(Buffer.from('café', 'latin1'), 'Text/Plain; Charset="ISO-8859-1"').text).toBe(
      'café',
    );
    expect(text(Buffer.from('{"a":1}'), 'APPLICATION/JSON').binary).toBe(false);
    // Structured-syntax suffixes and line-delimited JSON are text too.
    for (const type of ['application/vnd.api+json', 'application/x-ndjson', 'application/ld+json'])
      expect(text(Buffer.from('{"a":1}\n'), type)).toMatchObject({
        text: '{"a":1}\n',
        binary: false,
        html: false,
      });
    // An unknown charset label: read as UTF-8.
    expect(text(Buffer.from('naïve'), 'text/plain; charset=x-unheard-of').text).toBe('naïve');
  });

  it('notes the type and size of content that is not text instead of its bytes', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
    expect(text(png, 'image/png')).toMatchObject({
      text: 'image/png, 10 bytes, not text',
      binary: true,
    });
    expect(text(Buffer.alloc(4096), 'application/pdf', true).text).toBe(
      'application/pdf, at least 4096 bytes, not text',
    );
    // Undeclared: NUL bytes mean binary; anything else is read as text.
    expect(text(png).text).toBe('application/octet-stream, 10 bytes, not text');
    expect(text(Buffer.from('plain words'))).toMatchObject({ text: 'plain words', binary: false });
  });
});
