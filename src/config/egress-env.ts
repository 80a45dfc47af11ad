/** The egress proxy settings (`EGRESS_PROXY`, `EGRESS_NO_PROXY`) of the environment. Pure: no Nest import. */
import { parseNoProxy } from '../common/no-proxy.js';
import type { EgressSettings } from '../common/egress.js';
import { EnvError, present, type Raw } from './env-values.js';

/** Loopback stays direct unless EGRESS_NO_PROXY says otherwise. */
export const DEFAULT_NO_PROXY = 'localhost,127.0.0.0/8,::1';

function proxyUrl(raw: Raw): string {
  const value = present(raw, 'EGRESS_PROXY');
  if (value === undefined) return '';
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  // The value may hold the proxy's password: never quoted back.
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname)
    throw new EnvError(
      `EGRESS_PROXY is invalid: expected the proxy's http:// or https:// URL, e.g. http://proxy.corp:3128 (credentials as http://user:password@proxy.corp:3128)`,
    );
  if (url.pathname !== '/' || url.search || url.hash)
    throw new EnvError(
      `EGRESS_PROXY is invalid: give the proxy's URL without a path or query, e.g. ${url.protocol}//${url.host}`,
    );
  return url.href;
}

export function parseEgress(raw: Raw): EgressSettings {
  const proxy = proxyUrl(raw);
  const noProxy = present(raw, 'EGRESS_NO_PROXY') ?? DEFAULT_NO_PROXY;
  try {
    return { proxy, noProxy: parseNoProxy(noProxy), noProxyText: noProxy };
  } catch (error) {
    throw new EnvError(`EGRESS_NO_PROXY is invalid: ${(error as Error).message}`);
  }
}
