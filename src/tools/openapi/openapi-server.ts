/** Where an OpenAPI operation's requests go: the document's server, or the entry's `base_url`. */
import { OperationError } from './operation-error.js';
import type { OpenApiSpec } from './openapi-operation.js';

/**
 * The spec's first server with an absolute http(s) URL (its variables at their defaults, a
 * relative one read against the document's URL): a document may list a `wss://` or relative one
 * first (Swagger 2.0's `schemes: [ws, https]` makes one server per scheme). `base_url` overrides
 * it. When none has one, why not, of the first server.
 */
export function serverUrl(
  spec: OpenApiSpec,
  baseUrl: string | undefined,
  documentUrl: string | undefined,
): string {
  if (baseUrl !== undefined) return baseUrl.replace(/\/+$/, '');
  const servers = spec.servers?.length ? spec.servers : [undefined];
  const made = servers.map((server) => serverAddress(server, documentUrl));
  const usable = made.find((url): url is string => typeof url === 'string');
  if (usable !== undefined) return usable;
  throw made[0] as OperationError;
}

type Server = NonNullable<OpenApiSpec['servers']>[number];

/** `server`'s URL made absolute, or why it cannot be. */
function serverAddress(
  server: Server | undefined,
  documentUrl: string | undefined,
): string | OperationError {
  let url = String(server?.url ?? '').replace(/\{([^}]+)\}/g, (whole, name: string) =>
    String(server?.variables?.[name]?.default ?? whole),
  );
  // A relative server URL is relative to where the document was read (OpenAPI 3, "servers").
  if (
    documentUrl !== undefined &&
    !/^https?:\/\//i.test(url) &&
    URL.canParse(url || '/', documentUrl)
  )
    url = new URL(url || '/', documentUrl).href;
  if (!/^https?:\/\//i.test(url))
    return new OperationError(
      'base_url',
      `is required: the spec's servers give no absolute http(s) URL${url ? ` (${JSON.stringify(url)})` : ''}`,
    );
  const unset = /\{[^}]*\}/.exec(url)?.[0];
  if (unset !== undefined)
    return new OperationError(
      'base_url',
      `is required: the spec's server URL has a variable ${unset} without a default (${JSON.stringify(server?.url)})`,
    );
  return url.replace(/\/+$/, '');
}
