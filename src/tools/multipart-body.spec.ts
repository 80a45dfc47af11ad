import { multipartBody } from './multipart-body.js';

describe('multipartBody', () => {
  it('makes the same body of the same fields (a cached result is found again), another of others', () => {
    const one = multipartBody({ q: 'tea', n: 2 });
    expect(multipartBody({ q: 'tea', n: 2 })).toEqual(one);
    expect(multipartBody({ q: 'cake', n: 2 }).contentType).not.toBe(one.contentType);
    expect(one.contentType).toMatch(/^multipart\/form-data; boundary=----engine-[0-9a-f]{32}$/);
  });

  it('escapes field names as a browser does, and keeps a given type but its old boundary', () => {
    const { body, contentType } = multipartBody(
      { 'a"b\nc': null },
      'multipart/form-data; boundary=old; charset=utf-8',
    );
    expect(body).toContain('Content-Disposition: form-data; name="a%22b%0D%0Ac"\r\n\r\n\r\n');
    expect(contentType).toMatch(/^multipart\/form-data; charset=utf-8; boundary=----engine-/);
  });
});
