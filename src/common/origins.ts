/**
 * Lists of web origins (CORS_ORIGINS, WS_ALLOWED_ORIGINS): `*` for every origin, an origin as a
 * browser sends it (`https://app.example.com`, `http://localhost:3000`), or one whose host begins
 * with `*.` for every subdomain (`https://*.example.com`). Pure: no Nest import.
 */

const ORIGIN =
  /^(https?):\/\/(\*\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/i;

/** Comma- or space-separated origins, lower-cased; throws an Error naming the first bad entry. */
export function parseOrigins(text: string): string[] {
  return text
    .split(/[,\s]+/)
    .filter((entry) => entry !== '')
    .map((entry) => {
      const origin = entry.replace(/\/$/, '').toLowerCase();
      if (origin !== '*' && !ORIGIN.test(origin))
        throw new Error(
          `${JSON.stringify(entry)} is no origin: expected scheme://host[:port] (no path), e.g. https://app.example.com or https://*.example.com, or *`,
        );
      return origin;
    });
}

/** Whether `origin` (a request's Origin header) is one of `allowed`. */
export function originAllowed(allowed: readonly string[], origin: string): boolean {
  const given = origin.toLowerCase();
  return allowed.some((rule) => {
    if (rule === '*' || rule === given) return true;
    const star = rule.indexOf('://*.');
    if (star === -1) return false;
    // `https://*.example.com:8443`: the same scheme, a host under the domain, the same port.
    const scheme = rule.slice(0, star + 3);
    const rest = rule.slice(star + 4); // `.example.com:8443`
    if (!given.startsWith(scheme)) return false;
    const host = given.slice(scheme.length);
    return (
      host.endsWith(rest) && host.length > rest.length && !host.slice(0, -rest.length).includes(':')
    );
  });
}
