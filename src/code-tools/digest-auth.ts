/**
 * HTTP Digest access authentication (RFC 7616) for `ces_requests`' HTTPDigestAuth: the challenge
 * of a 401's WWW-Authenticate, and the Authorization that answers it. Pure: no Nest import.
 */
import { createHash, randomBytes } from 'node:crypto';

export interface DigestChallenge {
  realm: string;
  nonce: string;
  /** `auth` when the server offers it (quality of protection), else none (RFC 2069). */
  qop?: 'auth';
  algorithm: string;
  opaque?: string;
}

const HASHES: Record<string, string> = {
  MD5: 'md5',
  'SHA-256': 'sha256',
  'SHA-512-256': 'sha512-256',
};

/**
 * The Digest challenge of a WWW-Authenticate header (other schemes beside it are passed over), or
 * undefined: none, one without realm or nonce, an algorithm or a qop (only `auth-int`) not known.
 */
export function digestChallenge(header: string | undefined): DigestChallenge | undefined {
  const at = header?.search(/(^|[\s,])Digest\s/i) ?? -1;
  if (header === undefined || at < 0) return undefined;
  const params: Record<string, string> = {};
  const param = /([A-Za-z0-9_-]+)\s*=\s*("((?:[^"\\]|\\.)*)"|[^,\s]*)/g;
  for (const [, name, raw, quoted] of header.slice(at).matchAll(param)) {
    const key = name!.toLowerCase();
    params[key] ??= quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : raw!;
  }
  const algorithm = (params.algorithm ?? 'MD5').toUpperCase();
  const offered = params.qop?.split(',').map((q) => q.trim().toLowerCase());
  if (params.realm === undefined || !params.nonce || !HASHES[algorithm.replace(/-SESS$/, '')])
    return undefined;
  if (offered && !offered.includes('auth')) return undefined;
  return {
    realm: params.realm,
    nonce: params.nonce,
    algorithm,
    ...(offered && { qop: 'auth' as const }),
    ...(params.opaque !== undefined && { opaque: params.opaque }),
  };
}

/** The Authorization answering `challenge` for a request of `method` to `uri` (its path and query). */
export function digestAuthorization(
  challenge: DigestChallenge,
  request: { user: string; password: string; method: string; uri: string },
  cnonce = randomBytes(16).toString('hex'),
): string {
  const hash = HASHES[challenge.algorithm.replace(/-SESS$/, '')]!;
  const H = (text: string) => createHash(hash).update(text, 'utf8').digest('hex');
  const nc = '00000001'; // one answer a challenge: a new one comes with the next 401
  let ha1 = H(`${request.user}:${challenge.realm}:${request.password}`);
  if (challenge.algorithm.endsWith('-SESS')) ha1 = H(`${ha1}:${challenge.nonce}:${cnonce}`);
  const ha2 = H(`${request.method}:${request.uri}`);
  const response = challenge.qop
    ? H(`${ha1}:${challenge.nonce}:${nc}:${cnonce}:auth:${ha2}`)
    : H(`${ha1}:${challenge.nonce}:${ha2}`);
  const quoted = (text: string) => `"${text.replace(/(["\\])/g, '\\$1')}"`;
  return [
    `Digest username=${quoted(request.user)}`,
    `realm=${quoted(challenge.realm)}`,
    `nonce=${quoted(challenge.nonce)}`,
    `uri=${quoted(request.uri)}`,
    `response=${quoted(response)}`,
    ...(challenge.opaque !== undefined ? [`opaque=${quoted(challenge.opaque)}`] : []),
    `algorithm=${challenge.algorithm}`,
    ...(challenge.qop ? [`qop=auth`, `nc=${nc}`, `cnonce=${quoted(cnonce)}`] : []),
  ].join(', ');
}
