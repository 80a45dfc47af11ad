import { digestAuthorization, digestChallenge } from './digest-auth.js';

// RFC 7616 §3.9.1: the worked example, for MD5 and SHA-256.
const CNONCE = 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ';
const request = {
  user: 'Mufasa',
  password: 'Circle of Life',
  method: 'GET',
  uri: '/dir/index.html',
};
const challenge = (algorithm: string) =>
  `Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=${algorithm}, ` +
  'nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"';
const responseOf = (authorization: string) => /response="([0-9a-f]+)"/.exec(authorization)?.[1];

describe('HTTP Digest authentication (RFC 7616)', () => {
  it.each([
    ['MD5', '8ca523f5e9506fed4657c9700eebdbec'],
    ['SHA-256', '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1'],
  ])("answers the RFC's %s example as it says", (algorithm, response) => {
    const read = digestChallenge(challenge(algorithm))!;
    expect(read).toEqual({
      realm: 'http-auth@example.org',
      nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
      qop: 'auth',
      algorithm,
      opaque: 'FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS',
    });
    const authorization = digestAuthorization(read, request, CNONCE);
    expect(responseOf(authorization)).toBe(response);
    expect(authorization).toBe(
      `Digest username="Mufasa", realm="http-auth@example.org", nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", uri="/dir/index.html", response="${response}", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", algorithm=${algorithm}, qop=auth, nc=00000001, cnonce="${CNONCE}"`,
    );
  });

  it('finds the Digest challenge among others, MD5 by default, and one without qop (RFC 2069)', () => {
    const read = digestChallenge('Basic realm="other", Digest realm="a\\"b", nonce=n1');
    expect(read).toEqual({ realm: 'a"b', nonce: 'n1', algorithm: 'MD5' });
    // RFC 2069: H(HA1:nonce:HA2), no nc or cnonce.
    const authorization = digestAuthorization(read!, request, CNONCE);
    expect(authorization).not.toContain('cnonce');
    expect(authorization).toContain('realm="a\\"b"');
  });

  it('refuses what it cannot answer: no Digest, no nonce, an unknown algorithm, auth-int only', () => {
    for (const header of [
      'Basic realm="x"',
      'Digest realm="x"',
      'Digest realm="x", nonce="n", algorithm=SHA-1',
      'Digest realm="x", nonce="n", qop="auth-int"',
    ])
      expect(digestChallenge(header)).toBeUndefined();
  });
});
