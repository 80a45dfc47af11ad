/** What HTTP lets a request's method and headers hold (RFC 9110). Pure: no Nest import. */

/** RFC 9110 token: what an HTTP method (and a header name) may be made of. */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Why a header value cannot be sent (Node refuses what RFC 9110's field-value does not allow:
 * only tab, visible ASCII and Latin-1), or undefined. Never quotes the value: it may hold a secret.
 */
export function headerValueFault(value: string): string | undefined {
  const bad = /[^\t\x20-\x7e\x80-\xff]/u.exec(value)?.[0];
  if (bad === undefined) return undefined;
  if (bad === '\r' || bad === '\n') return 'a line break';
  return bad < ' ' || bad === '\x7f'
    ? 'a control character'
    : 'a character beyond Latin-1, which an HTTP header cannot carry';
}
