/** Where an OpenAPI tool's document comes from: a file on the engine's disk, or an http(s) URL. */
import axios from 'axios';
import type { dereference as Dereference } from '@apidevtools/json-schema-ref-parser';
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { parse as ParseYaml } from 'yaml';
import { excerpt } from '../../common/http-text.js';
import { offMetadata } from '../address-guard.js';
import type { OpenApiSpec } from './openapi-operation.js';
import { shapeFault } from './document-shape.js';
import { fromSwagger2 } from './swagger2.js';

/** The libraries that read documents, loaded with the first OpenAPI tool (one after the other). */
let readers: Promise<{ dereference: typeof Dereference; parseYaml: typeof ParseYaml }> | undefined;
const documentReaders = () =>
  (readers ??= (async () => {
    const { dereference } = await import('@apidevtools/json-schema-ref-parser');
    const { parse } = await import('yaml');
    return { dereference, parseYaml: parse };
  })());

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
 * an HTTP tool's request goes — never to a cloud metadata address, at most 3
 * redirects, within `timeoutMs`. A document at a URL comes with the version read (what a watch
 * of the URL compares with).
 */
export async function readSpec(
  location: string,
  timeoutMs: number,
): Promise<{ document: OpenApiSpec; version?: SpecVersion }> {
  const { dereference, parseYaml } = await documentReaders();
  const options = { dereference: { circular: 'ignore' as const } };
  if (!isSpecUrl(location)) {
    const document = await dereference<OpenApiSpec>(location, {
      ...options,
      resolve: { http: false },
    });
    return { document: await openApi3(document) };
  }
  const read = await fetchSpec(location, timeoutMs); // unconditional: never `unchanged`
  const text = 'text' in read ? read.text : '';
  const version = { digest: specDigest(text), validators: 'text' in read ? read.validators : {} };
  try {
    if (/^\s*<(!doctype html|html)\b/i.test(text))
      throw new Error(`an HTML page, not a JSON or YAML document: ${excerpt(text, 100)}`);
    const parsed: unknown = parseYaml(text);
    if (typeof parsed !== 'object' || parsed === null) throw new Error('not a JSON or YAML object');
    const document = await dereference<OpenApiSpec>(parsed as OpenApiSpec, {
      ...options,
      resolve: { external: false },
    });
    return { document: await openApi3(document), version };
  } catch (error) {
    throw new SpecContentError((error as Error).message);
  }
}

/**
 * `document` as OpenAPI 3 (what tools are made from): as it is, or converted from Swagger 2.0;
 * else why not (never quoting it).
 */
async function openApi3(document: OpenApiSpec): Promise<OpenApiSpec> {
  const { openapi, swagger } = document as { openapi?: unknown; swagger?: unknown };
  if (typeof openapi === 'string' && openapi.startsWith('3.')) return sound(document, 'openapi3');
  if (swagger === '2.0') return fromSwagger2(sound(document, 'swagger2'));
  if (swagger !== undefined)
    throw new Error(
      `a Swagger ${typeof swagger === 'string' ? swagger : JSON.stringify(swagger)} document: convert it to OpenAPI 3 (swagger2openapi takes Swagger 2.0; the Swagger Editor converts)`,
    );
  throw new Error(
    `not an OpenAPI 3 document: ${openapi === undefined ? 'it has no "openapi" field' : `its "openapi" is ${JSON.stringify(openapi)}`}`,
  );
}

/** `document`, if its skeleton is sound; else throws saying where it is not. */
function sound(document: OpenApiSpec, version: 'openapi3' | 'swagger2'): OpenApiSpec {
  const fault = shapeFault(document, version);
  if (fault !== undefined) throw new Error(fault);
  return document;
}

/** A document at a URL was read, but is not a JSON or YAML document whose `$ref`s resolve. */
export class SpecContentError extends Error {}

/** What tells two reads of a document apart: a digest of its text. */
export const specDigest = (text: string) => createHash('sha256').update(text).digest('hex');

/** What a server said identifies a document's version, for a conditional request. */
export interface SpecValidators {
  etag?: string;
  lastModified?: string;
}

/** One version of a document at a URL: the digest of its text, and its server's validators. */
export interface SpecVersion {
  digest: string;
  validators: SpecValidators;
}

/** A document read again: its text and validators, or `unchanged` (HTTP 304 to the validators sent). */
export type SpecRead = { unchanged: true } | { text: string; validators: SpecValidators };

/**
 * The document at `url`, asked for only if it changed since `seen` (If-None-Match,
 * If-Modified-Since): a server that keeps validators answers 304 and sends nothing.
 */
export async function fetchSpec(
  url: string,
  timeoutMs: number,
  seen: SpecValidators = {},
): Promise<SpecRead> {
  const response = await axios.get<string>(url, {
    responseType: 'text',
    transformResponse: [(data: unknown) => data],
    timeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
    maxContentLength: MAX_SPEC_BYTES,
    ...offMetadata(url),
    headers: {
      Accept: 'application/json, application/yaml;q=0.9, */*;q=0.5',
      ...(seen.etag && { 'If-None-Match': seen.etag }),
      ...(seen.lastModified && { 'If-Modified-Since': seen.lastModified }),
    },
    validateStatus: (status) => (status >= 200 && status < 300) || status === 304,
  });
  if (response.status === 304) return { unchanged: true };
  const header = (name: string) => {
    const value: unknown = response.headers[name];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const etag = header('etag');
  const lastModified = header('last-modified');
  return {
    text: response.data,
    validators: { ...(etag && { etag }), ...(lastModified && { lastModified }) },
  };
}
