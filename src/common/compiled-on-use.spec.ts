import { Ajv } from 'ajv';
import { compiledOnUse } from './compiled-on-use.js';

describe('compiledOnUse', () => {
  it('compiles at the first check, once, and tells the last check’s errors as Ajv does', () => {
    let made = 0;
    const check = compiledOnUse<{ n: number }>(
      () => {
        made++;
        return new Ajv();
      },
      { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
    );
    expect(made).toBe(0);
    expect(check({ n: 'x' })).toBe(false);
    expect(check.errors).toMatchObject([{ instancePath: '/n', keyword: 'type' }]);
    expect(check({ n: 1 })).toBe(true);
    expect(check.errors).toBeNull();
    expect(made).toBe(1);
  });
});
