import { excerpt, mediaType } from './http-text.js';

describe('http-text', () => {
  it('reads the media type in lower case, and the charset, from a Content-Type', () => {
    expect(mediaType('Text/HTML; Charset="ISO-8859-1"')).toEqual({
      type: 'text/html',
      charset: 'ISO-8859-1',
    });
    expect(mediaType(null)).toEqual({ type: '', charset: undefined });
  });

  it('quotes a body on one line, cut at its length', () => {
    expect(excerpt('  <html>\n  <body>\tHi</body>\n</html>\n')).toBe(
      '<html> <body> Hi</body> </html>',
    );
    expect(excerpt('x'.repeat(300))).toHaveLength(200);
    expect(excerpt('abcdef', 3)).toBe('abc');
  });
});
