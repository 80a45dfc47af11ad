/**
 * The OAuth 2.0 client-credentials flow an OpenAPI operation's security declares, if any: where
 * an `openapi` tool's `oauth2` gets its token_url and scope when the entry leaves them out.
 */

interface SecurityScheme {
  type?: unknown;
  flows?: { clientCredentials?: { tokenUrl?: unknown } };
}

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
  spec: { security?: unknown; components?: { securitySchemes?: Record<string, unknown> } },
  operation: { security?: unknown },
  serverUrl: string,
): DeclaredClientCredentials | undefined {
  const requirements = (operation.security ?? spec.security ?? []) as Requirement[];
  const schemes = spec.components?.securitySchemes ?? {};
  for (const requirement of Array.isArray(requirements) ? requirements : []) {
    for (const [name, scopes] of Object.entries(requirement ?? {})) {
      const scheme = schemes[name] as SecurityScheme | undefined;
      const tokenUrl = scheme?.flows?.clientCredentials?.tokenUrl;
      if (scheme?.type !== 'oauth2' || typeof tokenUrl !== 'string' || tokenUrl === '') continue;
      const scope = Array.isArray(scopes) ? scopes.filter((s) => typeof s === 'string') : [];
      return {
        tokenUrl: new URL(tokenUrl, serverUrl.endsWith('/') ? serverUrl : `${serverUrl}/`).href,
        ...(scope.length > 0 && { scope: scope.join(' ') }),
      };
    }
  }
  return undefined;
}
