import { createHash } from 'node:crypto';

/** The Digest challenge a test server's 401 makes (RFC 7616: MD5, qop auth). */
export const DIGEST_CHALLENGE = 'Digest realm="pbx", qop="auth", nonce="n-7"';

/**
 * Whether `authorization` answers DIGEST_CHALLENGE for user `agent` and `password`: computed here
 * as the RFC says, apart from the engine's own code.
 */
export function digestAnswered(
  authorization: string | string[] | undefined,
  method: string,
  password: string,
): boolean {
  const md5 = (text: string) => createHash('md5').update(text).digest('hex');
  const said = Object.fromEntries(
    [...String(authorization ?? '').matchAll(/(\w+)="?([^",]*)"?/g)].map((m) => [m[1], m[2]]),
  );
  const ha1 = md5(`agent:pbx:${password}`);
  const ha2 = md5(`${method}:${said.uri}`);
  const expected = md5(`${ha1}:n-7:${said.nc}:${said.cnonce}:auth:${ha2}`);
  return String(authorization).startsWith('Digest ') && said.response === expected;
}
