import { formBody } from './argument-text.js';
import { buildHttpRequest, type BuiltRequest } from './http-request-builder.js';
import { validateToolDefinitions } from './tool-validation.js';

describe('a form body (Content-Type application/x-www-form-urlencoded)', () => {
  it('writes values as text, repeats the key of an array, and puts fields of objects in brackets', () => {
    expect(
      formBody({
        To: '+393331234567',
        Body: 'Your table is booked & confirmed',
        MediaUrl: ['https://x.example/a.png', 'https://x.example/b.png'],
        metadata: { order: 7, vip: true },
        items: [{ price: 'p_1', quantity: 2 }],
        note: null,
        empty: [],
      }),
    ).toBe(
      [
        'To=%2B393331234567',
        'Body=Your%20table%20is%20booked%20%26%20confirmed',
        'MediaUrl=https%3A%2F%2Fx.example%2Fa.png',
        'MediaUrl=https%3A%2F%2Fx.example%2Fb.png',
        'metadata%5Border%5D=7',
        'metadata%5Bvip%5D=true',
        'items%5B0%5D%5Bprice%5D=p_1',
        'items%5B0%5D%5Bquantity%5D=2',
        'note=',
      ].join('&'),
    );
  });

  it('is what an HTTP tool sends when its headers declare that type, in any case; JSON otherwise', () => {
    const send = (headers: Record<string, string>) => {
      const [tool] = validateToolDefinitions(
        [{ name: 'sms', url: 'https://api.example/Messages', method: 'POST', headers }],
        'test',
      ).tools;
      return buildHttpRequest(tool!, { To: '+39 333', Body: 'hi' }) as BuiltRequest;
    };
    expect(send({ 'content-type': 'Application/X-WWW-Form-Urlencoded; charset=utf-8' }).body).toBe(
      'To=%2B39%20333&Body=hi',
    );
    expect(send({ 'Content-Type': 'application/json' }).body).toBe('{"To":"+39 333","Body":"hi"}');
    expect(send({ 'Content-Type': 'application/x-www-form-urlencoded-v2' }).body).toBe(
      '{"To":"+39 333","Body":"hi"}',
    );
    expect(send({})).toMatchObject({
      headers: { 'Content-Type': 'application/json' },
      body: '{"To":"+39 333","Body":"hi"}',
    });
  });
});
