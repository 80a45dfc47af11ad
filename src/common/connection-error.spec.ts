import { connectionErrorCode, untrustedCertificate } from './connection-error.js';

const coded = (code: string, cause?: unknown) =>
  Object.assign(new Error(`failed: ${code} 10.0.3.4:443`), { code }, cause ? { cause } : {});

describe('connectionErrorCode', () => {
  it("names a failed connection by its system code, the error's own or its cause's", () => {
    expect(connectionErrorCode(coded('ECONNREFUSED'))).toBe('ECONNREFUSED');
    expect(connectionErrorCode(new TypeError('fetch failed', { cause: coded('ENOTFOUND') }))).toBe(
      'ENOTFOUND',
    );
    expect(connectionErrorCode(coded('ERR_INVALID_URL'))).toBeUndefined();
    expect(connectionErrorCode(coded(UNTRUSTED))).toBeUndefined();
  });
});

const UNTRUSTED = 'UNABLE_TO_VERIFY_LEAF_SIGNATURE';

describe('untrustedCertificate', () => {
  it('finds the code of a certificate TLS refused, however deep fetch or a client wrapped it', () => {
    for (const code of [
      UNTRUSTED,
      'SELF_SIGNED_CERT_IN_CHAIN',
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
      'CERT_HAS_EXPIRED',
      'CERT_NOT_YET_VALID',
      'ERR_TLS_CERT_ALTNAME_INVALID',
    ])
      expect(untrustedCertificate(coded(code))).toBe(code);
    const wrapped = new Error('MCP error', {
      cause: new TypeError('fetch failed', { cause: coded(UNTRUSTED) }),
    });
    expect(untrustedCertificate(wrapped)).toBe(UNTRUSTED);
  });

  it('says nothing of other failures', () => {
    for (const error of [coded('ECONNREFUSED'), coded('ERR_SSL_WRONG_VERSION_NUMBER'), 'x', null])
      expect(untrustedCertificate(error)).toBeUndefined();
    // A cycle of causes ends the search.
    const a: { code: string; cause?: unknown } = { code: 'X' };
    a.cause = a;
    expect(untrustedCertificate(a)).toBeUndefined();
  });
});
