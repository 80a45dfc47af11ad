import fc from 'fast-check';
import { builtRequest as built, toolOf } from '../../test/support/built-request.js';
import { buildHttpRequest } from './http-request-builder.js';

/**
 * Any text a model can write in an argument, as JSON can hold it: every UTF-16 code unit (lone
 * surrogates too, JSON's "\ud800"), and the characters that mean something in a URL, often.
 */
const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom('/', '?', '#', '%', '.', '&', '=', '+', ' ', ';', ',', '@', ':'),
    fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
  ),
  maxLength: 12,
});

/** What a server reads of the text: UTF-8, half a character as U+FFFD. */
const asRead = (value: string) => value.toWellFormed();

describe('HTTP requests over any argument text', () => {
  it('keeps a url placeholder inside its path segment, and a query argument inside its value', () => {
    fc.assert(
      fc.property(text, text, (city, q) => {
        fc.pre(city !== '.' && city !== '..');
        const req = built(
          { url: 'http://h.example:81/w/{city}/x?format=3', method: 'GET' },
          { city, q },
        );
        const url = new URL(req.url);
        expect(url.host).toBe('h.example:81');
        const segments = url.pathname.split('/');
        expect(segments).toHaveLength(4);
        expect([segments[1], decodeURIComponent(segments[2]!), segments[3]]).toEqual([
          'w',
          asRead(city),
          'x',
        ]);
        expect([...url.searchParams]).toEqual([
          ['format', '3'],
          ['q', asRead(q)],
        ]);
        expect(url.hash).toBe('');
      }),
    );
  });

  it('sends form fields and JSON bodies that read back as the arguments', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const form = built(
          {
            url: 'http://h/f',
            method: 'POST',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          },
          { a, b },
        );
        expect([...new URLSearchParams(form.body)]).toEqual([
          ['a', asRead(a)],
          ['b', asRead(b)],
        ]);
        const json = built({ url: 'http://h/j', method: 'POST' }, { a, b });
        expect(JSON.parse(json.body!)).toEqual({ a: asRead(a), b: asRead(b) });
      }),
    );
  });
});

/** Tools of every shape the builder writes arguments in: the model's arguments go to each. */
const SHAPES: Record<string, unknown>[] = [
  { url: 'http://h/w/{a}/{b}?x={c}', method: 'GET' },
  {
    url: 'http://h/w',
    method: 'DELETE',
    query_styles: { a: { style: 'form' }, b: { style: 'deepObject', explode: true } },
  },
  {
    url: 'http://h/w',
    method: 'GET',
    query_styles: { a: { style: 'spaceDelimited' }, b: { style: 'pipeDelimited', explode: false } },
  },
  {
    url: 'http://h/w/{a}{b}',
    method: 'GET',
    placeholder_styles: { a: { style: 'label', explode: true }, b: { style: 'matrix' } },
  },
  {
    url: 'http://h/w',
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  },
  { url: 'http://h/w', method: 'POST', headers: { 'Content-Type': 'multipart/form-data' } },
  { url: 'http://h/w', method: 'POST', body: '{"a": {a}, "text": "{b}"}' },
  {
    url: 'http://h/w',
    method: 'PUT',
    headers: { 'X-A': '{a}' },
    header_arguments: ['a'],
    query_arguments: ['b'],
  },
];

describe('HTTP requests over any arguments', () => {
  it('are built or refused with the tool request error, never thrown', () => {
    const value = fc.oneof(
      text,
      fc.jsonValue(),
      fc.array(text, { maxLength: 3 }),
      fc.dictionary(text, text, { maxKeys: 3 }),
    );
    const outcomes = new Set<string>();
    fc.assert(
      fc.property(
        fc.constantFrom(...SHAPES),
        fc.record({ a: value, b: value, c: value }, { requiredKeys: [] }),
        (shape, args) => {
          const result = buildHttpRequest(toolOf(shape), args);
          outcomes.add('error' in result ? 'refused' : 'built');
          if ('error' in result)
            return expect(result.error).toMatch(/^Error: tool request failed: /);
          expect(new URL(result.url).host).toBe('h');
        },
      ),
      { numRuns: 500 },
    );
    expect([...outcomes].sort()).toEqual(['built', 'refused']);
  });
});
