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
