/**
 * What an OpenAPI operation's security declares: the OAuth 2.0 client-credentials flow an
 * `openapi` tool's `oauth2` gets its token_url and scope from when the entry leaves them out, and
 * where its `api_key` goes.
 */

interface SecurityScheme {
  type?: unknown;
  flows?: { clientCredentials?: { tokenUrl?: unknown } };
  /** apiKey: where the key goes, and the name it goes by. */
  in?: unknown;
  name?: unknown;
  /** http: `bearer`, `basic`, … */
  scheme?: unknown;
}

type Spec = { security?: unknown; components?: { securitySchemes?: Record<string, unknown> } };

/** A security requirement: scheme name → the scopes it asks for. */
type Requirement = Record<string, unknown>;

export interface DeclaredClientCredentials {
  tokenUrl: string;
  /** The scopes the requirement names, space-separated (RFC 6749 §3.3); none: undefined. */
  scope?: string;
}

/**
 * The first of the operation's security requirements (its own, else the document's) that names
 * an oauth2 scheme with a clientCredentials flow; its token URL resolved against `serverUrl`.
 */
export function declaredClientCredentials(
  spec: Spec,
  operation: { security?: unknown },
  serverUrl: string,
): DeclaredClientCredentials | undefined {
  for (const [scheme, scopes] of declaredSchemes(spec, operation)) {
    const tokenUrl = scheme?.flows?.clientCredentials?.tokenUrl;
    if (scheme?.type !== 'oauth2' || typeof tokenUrl !== 'string' || tokenUrl === '') continue;
    const scope = Array.isArray(scopes) ? scopes.filter((s) => typeof s === 'string') : [];
    return {
      tokenUrl: new URL(tokenUrl, serverUrl.endsWith('/') ? serverUrl : `${serverUrl}/`).href,
      ...(scope.length > 0 && { scope: scope.join(' ') }),
    };
  }
  return undefined;
}

/** Where a key goes: an apiKey scheme's header, query parameter or cookie, or HTTP bearer's header. */
export type DeclaredKey = { in: 'header' | 'query' | 'cookie'; name: string } | { in: 'bearer' };

/** Where a scheme of the document puts a key, if it takes one (apiKey, HTTP bearer). */
function keyPlace(scheme: SecurityScheme | undefined): DeclaredKey | undefined {
  if (scheme?.type === 'http' && /^bearer$/i.test(String(scheme.scheme))) return { in: 'bearer' };
  const where = scheme?.in;
  if (scheme?.type !== 'apiKey' || typeof scheme.name !== 'string' || scheme.name === '')
    return undefined;
  return where === 'header' || where === 'query' || where === 'cookie'
    ? { in: where, name: scheme.name }
    : undefined;
}

export interface DeclaredKeys {
  /**
   * The keys the operation's first requirement made only of such schemes asks for together (its
   * own requirements, else the document's), by scheme name; none: it takes no key.
   */
  required?: [string, DeclaredKey][];
  /** Every scheme of the document that takes a key, by name. */
  all: Record<string, DeclaredKey>;
}

/** The keys an operation's security takes (see DeclaredKeys). */
export function declaredKeys(spec: Spec, operation: { security?: unknown }): DeclaredKeys {
  const schemes = spec.components?.securitySchemes ?? {};
  const all: Record<string, DeclaredKey> = {};
  for (const [name, scheme] of Object.entries(schemes)) {
    const place = keyPlace(scheme as SecurityScheme);
    if (place) all[name] = place;
  }
  for (const requirement of requirementsOf(spec, operation)) {
    const names = Object.keys(requirement ?? {});
    if (names.length > 0 && names.every((name) => Object.hasOwn(all, name)))
      return { required: names.map((name) => [name, all[name]!]), all };
  }
  return { all };
}

/** The schemes the requirements name, in their order, each with the scopes asked for. */
function declaredSchemes(
  spec: Spec,
  operation: { security?: unknown },
): [SecurityScheme | undefined, unknown][] {
  const schemes = spec.components?.securitySchemes ?? {};
  return requirementsOf(spec, operation).flatMap((requirement) =>
    Object.entries(requirement ?? {}).map(
      ([name, scopes]) => [schemes[name] as SecurityScheme | undefined, scopes] as const,
    ),
  ) as [SecurityScheme | undefined, unknown][];
}

/** The operation's security requirements, else the document's. */
function requirementsOf(spec: Spec, operation: { security?: unknown }): Requirement[] {
  const requirements = operation.security ?? spec.security ?? [];
  return Array.isArray(requirements) ? (requirements as Requirement[]) : [];
}
