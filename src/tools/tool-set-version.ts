/**
 * The version of a tool set, sent as the admin API's ETag: the same set has the same version in
 * every engine process and replica, whichever installed it, so that `If-Match` can be checked
 * wherever a request lands. A change is made only if the set it was based on is still the one in
 * force across the engine (see ToolRegistry): two admins, or two parallel `PUT`s, cannot undo
 * each other's changes unseen. Pure: no Nest import.
 */
import { createHash } from 'node:crypto';

/**
 * The version of an override's definitions, as given: SHA-1 of their JSON text (what Redis keeps,
 * whose scripts compute `redis.sha1hex` of it).
 */
export function overrideVersion(definitions: unknown): string {
  return createHash('sha1').update(JSON.stringify(definitions)).digest('hex');
}

/** The version of a set in force: an override's, or the tools file's (`file-…`), or `none`. */
export function setVersion(set: {
  source: 'file' | 'request' | 'none';
  definitions: readonly { raw: unknown }[];
}): string {
  if (set.source === 'none') return 'none';
  const version = overrideVersion(set.definitions.map((t) => t.raw));
  return set.source === 'file' ? `file-${version}` : version;
}

/** The override a set in force is, for the engine's record of overrides: '' for none. */
export function overrideBase(set: Parameters<typeof setVersion>[0]): string {
  return set.source === 'request' ? setVersion(set) : '';
}

/** The ETag header of `version`. */
export const etagOf = (version: string) => `"${version}"`;

/**
 * Whether an `If-Match` header allows a change of the set whose version is `version`: `*`, or a
 * list naming its ETag (weak ones compare as strong: a set's version is exact).
 */
export function ifMatchAllows(header: string, version: string): boolean {
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '').replace(/^"(.*)"$/, '$1') === version;
  });
}

/** Why a change was not made: the set changed since it was read. */
export class ToolSetChanged extends Error {
  constructor(
    /** 412: the request's If-Match no longer holds; 409: other changes kept coming. */
    readonly status: 409 | 412,
    message: string,
  ) {
    super(message);
  }
}

/** What the record of overrides across the engine answers a conditional change. */
export type Claim =
  | { outcome: 'claimed' }
  /** Another change came first: the override now in force there (null: none). */
  | { outcome: 'conflict'; definitions: unknown };
