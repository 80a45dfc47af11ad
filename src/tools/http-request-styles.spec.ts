import { builtRequest as built, toolOf as tool } from '../../test/support/built-request.js';

describe('query_styles: array and object arguments in the query as OpenAPI writes them', () => {
  const args = { id: [3, 4, 5], color: { R: 100, G: 200 }, q: 'a b' };
  const query = (styles: Record<string, unknown>) =>
    built({ url: 'http://h/items', method: 'GET', query_styles: styles }, args).url.split('?')[1];
  const JSON_COLOR = 'color=%7B%22R%22%3A100%2C%22G%22%3A200%7D';

  it.each([
    ['none: JSON text', {}, `id=%5B3%2C4%2C5%5D&${JSON_COLOR}&q=a%20b`],
    [
      'form, exploded (the default)',
      { id: { style: 'form' }, color: { style: 'form' } },
      'id=3&id=4&id=5&R=100&G=200&q=a%20b',
    ],
    [
      'form, not exploded',
      { id: { style: 'form', explode: false }, color: { style: 'form', explode: false } },
      'id=3,4,5&color=R,100,G,200&q=a%20b',
    ],
    ['spaceDelimited', { id: { style: 'spaceDelimited' } }, `id=3%204%205&${JSON_COLOR}&q=a%20b`],
    [
      'pipeDelimited',
      { id: { style: 'pipeDelimited', explode: false } },
      `id=3%7C4%7C5&${JSON_COLOR}&q=a%20b`,
    ],
    [
      'deepObject',
      { color: { style: 'deepObject', explode: true } },
      'id=%5B3%2C4%2C5%5D&color[R]=100&color[G]=200&q=a%20b',
    ],
  ])('%s', (_name, styles, written) => {
    expect(query(styles)).toBe(written);
  });

  it('writes a scalar as ever, encodes items, and leaves an argument named like a prototype key alone', () => {
    const req = built(
      { url: 'http://h/s', method: 'GET', query_styles: { tags: { style: 'form' } } },
      { tags: ['a&b', 'c d'], one: 'x', constructor: [1, 2] },
    );
    expect(req.url).toBe('http://h/s?tags=a%26b&tags=c%20d&one=x&constructor=%5B1%2C2%5D');
  });

  it('refuses a style OpenAPI does not have, naming the field', () => {
    expect(() => tool({ url: 'http://h/s', query_styles: { tags: { style: 'matrix' } } })).toThrow(
      "field 'query_styles.tags.style' is invalid",
    );
  });
});

describe('placeholder_styles: array and object arguments in the url and headers as OpenAPI writes them', () => {
  const args = { id: [3, 4, 5], color: { R: 100, G: 200 }, one: 'a b' };
  const path = (template: string, styles: Record<string, unknown>) =>
    built({ url: `http://h/items/${template}`, method: 'GET', placeholder_styles: styles }, args)
      .url.slice('http://h/items/'.length)
      .split('?')[0];

  // OpenAPI 3's "Style Examples": simple, label and matrix, exploded or not.
  it.each([
    [
      'none: a list joined, an object as JSON',
      '{id}/{color}',
      {},
      '3,4,5/%7B%22R%22%3A100%2C%22G%22%3A200%7D',
    ],
    [
      'simple',
      '{id}/{color}',
      { id: { style: 'simple' }, color: { style: 'simple' } },
      '3,4,5/R,100,G,200',
    ],
    [
      'simple, exploded',
      '{id}/{color}',
      { id: { style: 'simple', explode: true }, color: { style: 'simple', explode: true } },
      '3,4,5/R=100,G=200',
    ],
    [
      'label',
      '{id}/{color}',
      { id: { style: 'label' }, color: { style: 'label' } },
      '.3,4,5/.R,100,G,200',
    ],
    [
      'label, exploded',
      '{id}/{color}',
      { id: { style: 'label', explode: true }, color: { style: 'label', explode: true } },
      '.3.4.5/.R=100.G=200',
    ],
    [
      'matrix',
      'x{id}{color}{one}',
      { id: { style: 'matrix' }, color: { style: 'matrix' }, one: { style: 'matrix' } },
      'x;id=3,4,5;color=R,100,G,200;one=a%20b',
    ],
    [
      'matrix, exploded',
      'x{id}{color}',
      { id: { style: 'matrix', explode: true }, color: { style: 'matrix', explode: true } },
      'x;id=3;id=4;id=5;R=100;G=200',
    ],
  ])('%s', (_name, template, styles, written) => {
    expect(path(template, styles)).toBe(written);
  });

  it('encodes each item, not the delimiters, and writes a header as simple does', () => {
    const req = built(
      {
        url: 'http://h/tags/{tags}',
        method: 'GET',
        headers: { 'X-Filter': '{filter}' },
        placeholder_styles: {
          tags: { style: 'simple' },
          filter: { style: 'simple', explode: true },
        },
      },
      { tags: ['a/b', 'c,d'], filter: { region: 'eu west', tier: 2 } },
    );
    expect(req.url.split('?')[0]).toBe('http://h/tags/a%2Fb,c%2Cd');
    expect(req.headers).toEqual({ 'X-Filter': 'region=eu west,tier=2' });
  });

  it('refuses a style a path parameter does not have, naming the field', () => {
    expect(() =>
      tool({ url: 'http://h/s/{a}', placeholder_styles: { a: { style: 'form' } } }),
    ).toThrow("field 'placeholder_styles.a.style' is invalid");
  });
});
