import type { IncomingMessage } from 'node:http';
import { bearerMatches, upgradeCarriesKey } from './bearer-key.js';

const key = 's3cret-admin';
const upgrade = (url: string, authorization?: string) =>
  ({ url, headers: authorization === undefined ? {} : { authorization } }) as IncomingMessage;

describe('bearerMatches', () => {
  it('takes the key itself, whatever the case of "Bearer" and the spaces around the key', () => {
    expect(bearerMatches(`Bearer ${key}`, key)).toBe(true);
    expect(bearerMatches(`bearer ${key}`, key)).toBe(true);
    expect(bearerMatches(`Bearer   ${key}  `, key)).toBe(true);
  });

  it('refuses any other key, one of the same length too, and other schemes', () => {
    expect(bearerMatches(undefined, key)).toBe(false);
    expect(bearerMatches('', key)).toBe(false);
    expect(bearerMatches('Bearer s3cret-admiN', key)).toBe(false);
    expect(bearerMatches('Bearer x'.padEnd(7 + key.length, 'x'), key)).toBe(false);
    expect(bearerMatches(`Bearer ${key}x`, key)).toBe(false);
    expect(bearerMatches(`Basic ${key}`, key)).toBe(false);
    expect(bearerMatches(key, key)).toBe(false);
  });
});

describe('upgradeCarriesKey', () => {
  it('takes the key as a bearer header or as the token query parameter', () => {
    expect(upgradeCarriesKey(upgrade('/ws', `Bearer ${key}`), key)).toBe(true);
    expect(upgradeCarriesKey(upgrade(`/ws?token=${key}`), key)).toBe(true);
    expect(upgradeCarriesKey(upgrade(`/ws?token=${encodeURIComponent('a b&c')}`), 'a b&c')).toBe(
      true,
    );
  });

  it('refuses a wrong key either way, one of the same length too', () => {
    expect(upgradeCarriesKey(upgrade('/ws'), key)).toBe(false);
    expect(upgradeCarriesKey(upgrade('/ws?token=s3cret-admiN'), key)).toBe(false);
    expect(upgradeCarriesKey(upgrade('/ws?token='), key)).toBe(false);
    expect(upgradeCarriesKey(upgrade('/ws', 'Bearer s3cret-admiN'), key)).toBe(false);
  });
});

describe('several keys, one per line (a key being replaced)', () => {
  const keys = 'old-key-1\r\n\n  new-key-2  \n';

  it('takes each of them, as a header or a token', () => {
    expect(bearerMatches('Bearer old-key-1', keys)).toBe(true);
    expect(bearerMatches('Bearer new-key-2', keys)).toBe(true);
    expect(upgradeCarriesKey(upgrade('/ws?token=new-key-2'), keys)).toBe(true);
  });

  it('takes nothing else: not the lines together, a part of one, or an empty key', () => {
    expect(bearerMatches('Bearer old-key-1 new-key-2', keys)).toBe(false);
    expect(bearerMatches('Bearer new-key', keys)).toBe(false);
    expect(upgradeCarriesKey(upgrade(`/ws?token=${encodeURIComponent(keys)}`), keys)).toBe(false);
    expect(upgradeCarriesKey(upgrade('/ws?token=%0A'), keys)).toBe(false);
    expect(upgradeCarriesKey(upgrade('/ws?token='), keys)).toBe(false);
  });
});
