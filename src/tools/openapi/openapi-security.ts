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

/**
 * The first scheme of the operation's security requirements (its own, else the document's) that
 * takes one key: apiKey (in a header, the query or a cookie) or HTTP bearer.
 */
export function declaredKey(
  spec: Spec,
  operation: { security?: unknown },
): DeclaredKey | undefined {
  for (const [scheme] of declaredSchemes(spec, operation)) {
    if (scheme?.type === 'http' && /^bearer$/i.test(String(scheme.scheme))) return { in: 'bearer' };
    const where = scheme?.in;
    if (scheme?.type !== 'apiKey' || typeof scheme.name !== 'string' || scheme.name === '')
      continue;
    if (where === 'header' || where === 'query' || where === 'cookie')
      return { in: where, name: scheme.name };
  }
  return undefined;
}

/** The schemes the requirements name, in their order, each with the scopes asked for. */
function declaredSchemes(
  spec: Spec,
  operation: { security?: unknown },
): [SecurityScheme | undefined, unknown][] {
  const requirements = (operation.security ?? spec.security ?? []) as Requirement[];
  const schemes = spec.components?.securitySchemes ?? {};
  return (Array.isArray(requirements) ? requirements : []).flatMap((requirement) =>
    Object.entries(requirement ?? {}).map(
      ([name, scopes]) => [schemes[name] as SecurityScheme | undefined, scopes] as const,
    ),
  ) as [SecurityScheme | undefined, unknown][];
}
