/** Where an OpenAPI tool's document comes from: a file on the engine's disk, or an http(s) URL. */
import { dereference } from '@apidevtools/json-schema-ref-parser';
import axios from 'axios';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { offLinkLocal } from '../address-guard.js';
import type { OpenApiSpec } from './openapi-operation.js';

/** The largest document read from a URL. */
const MAX_SPEC_BYTES = 16 * 1024 * 1024;

export const isSpecUrl = (spec: string) => /^https?:\/\//i.test(spec);

/** Where `spec` is read from: the URL, or the file's absolute path. */
export function specLocation(spec: string, baseDir: string): string {
  return isSpecUrl(spec) ? spec : resolve(baseDir, spec);
}

/**
 * The document, `$ref`s resolved: a file (JSON or YAML; `$ref`s to other files followed, never to
 * the network), or a URL fetched once (JSON or YAML; only its own `#/…` references followed), as
 * an HTTP tool's request goes — never to a link-local address (cloud metadata), at most 3
 * redirects, within `timeoutMs`.
 */
export async function readSpec(location: string, timeoutMs: number): Promise<OpenApiSpec> {
  const options = { dereference: { circular: 'ignore' as const } };
  if (!isSpecUrl(location))
    return dereference<OpenApiSpec>(location, { ...options, resolve: { http: false } });
  const parsed: unknown = parseYaml(await fetchSpecText(location, timeoutMs));
  if (typeof parsed !== 'object' || parsed === null) throw new Error('not a JSON or YAML object');
  return dereference<OpenApiSpec>(parsed as OpenApiSpec, {
    ...options,
    resolve: { external: false },
  });
}

/** The text of a document at a URL, fetched as `readSpec` fetches it. */
export async function fetchSpecText(url: string, timeoutMs: number): Promise<string> {
  const response = await axios.get<string>(url, {
    responseType: 'text',
    transformResponse: [(data: unknown) => data],
    timeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
    maxContentLength: MAX_SPEC_BYTES,
    ...offLinkLocal(url),
    headers: { Accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' },
  });
  return response.data;
}
