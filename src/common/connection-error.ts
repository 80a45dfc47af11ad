/**
 * The system error code of a connection that failed (`ECONNREFUSED`, `ENOTFOUND`, …), the error's
 * own or its cause's (fetch wraps it in "fetch failed"); not Node's `ERR_*` codes. Messages name a
 * failure by it rather than by the error's text, which holds the server's address
 * (`connect ECONNREFUSED 10.0.3.4:8000`). Pure: no Nest import.
 */
export function connectionErrorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null | undefined;
  return [e?.code, e?.cause?.code].find(
    (c): c is string => typeof c === 'string' && /^E(?!RR_)[A-Z_]+$/.test(c),
  );
}

/** What a response whose body the server cut off is said to be. */
export const CUT_OFF = 'the server closed the connection before the response was complete';

/** Whether `error` is Node's word for a response body cut off by the server ("aborted", ECONNRESET). */
export function cutOff(error: unknown): boolean {
  const e = error as { message?: unknown; code?: unknown } | null | undefined;
  return e?.message === 'aborted' || e?.code === 'ECONNRESET';
}

/** OpenSSL's and Node's codes for a server certificate that cannot be trusted. */
const UNTRUSTED =
  /^(?:UNABLE_TO_(?:VERIFY_LEAF_SIGNATURE|GET_ISSUER_CERT(?:_LOCALLY)?)|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_(?:HAS_EXPIRED|NOT_YET_VALID|UNTRUSTED|REJECTED|SIGNATURE_FAILURE)|ERR_TLS_CERT_ALTNAME_INVALID)$/;

/**
 * The code of a server certificate that TLS refused (`UNABLE_TO_VERIFY_LEAF_SIGNATURE` for one a
 * private CA signed, `CERT_HAS_EXPIRED`, `ERR_TLS_CERT_ALTNAME_INVALID`, …), the error's own or
 * that of one of its causes; undefined for any other failure.
 */
export function untrustedCertificate(error: unknown): string | undefined {
  let e = error as { code?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'string' && UNTRUSTED.test(e.code)) return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

/** What the operator does about an untrusted certificate, for the logs and the README. */
export const PRIVATE_CA_HINT =
  "a private CA's certificates are trusted once NODE_EXTRA_CA_CERTS names its PEM file";

/** ` (PRIVATE_CA_HINT)` for a log line about `error` when a certificate was refused, else ''. */
export function privateCaHint(error: unknown): string {
  return untrustedCertificate(error) ? ` (${PRIVATE_CA_HINT})` : '';
}
