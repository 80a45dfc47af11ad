/**
 * Span export to an OpenTelemetry collector (the standard `OTEL_*` variables, as every OpenTelemetry
 * SDK reads them): where, how, and what the engine is called there. Pure: no Nest import.
 */
import { readFileSync } from 'node:fs';
import { HTTP_TOKEN, headerValueFault } from '../common/http-fields.js';
import { endpointOf } from '../common/server-url.js';
import { bool, EnvError, httpUrl, int, oneOf, present, type Raw } from './env-values.js';

export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;

export interface TracingSettings {
  /** Where spans are POSTed (OTLP over HTTP); '' exports none. */
  url: string;
  protocol: (typeof OTLP_PROTOCOLS)[number];
  /** Sent with every export (a backend's key): secret. */
  headers: Record<string, string>;
  serviceName: string;
  /** Further attributes of the engine's resource (`k8s.pod.name`, `deployment.environment`). */
  resourceAttributes: Record<string, string>;
  /** Longest wait of an ended span before it is sent. */
  scheduleDelayMs: number;
  /** The share of turns whose spans are made and sent, 0 to 1 (by trace id, so a turn is whole). */
  sampleRatio: number;
  /**
   * The collector's CA and the engine's client certificate and key (`…_CERTIFICATE`,
   * `…_CLIENT_CERTIFICATE`, `…_CLIENT_KEY`), read for exports through the egress proxy (the
   * exporter reads them itself otherwise).
   */
  tls: { ca?: Buffer; cert?: Buffer; key?: Buffer };
}

/** The PEM file `base`'s `…_TRACES_…` form, or `base`, names, if any. */
function pemFile(raw: Raw, base: string): Buffer | undefined {
  const traces = base.replace('OTEL_EXPORTER_OTLP_', 'OTEL_EXPORTER_OTLP_TRACES_');
  const name = [traces, base].find((n) => present(raw, n) !== undefined);
  if (!name) return undefined;
  const path = present(raw, name)!;
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as Error).message;
    throw new EnvError(`${name}=${JSON.stringify(path)} cannot be read (${code})`);
  }
}

/** OpenTelemetry's sampler names; a turn's span has no parent, so `parentbased_` ones decide as their root sampler. */
const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

function sampleRatio(raw: Raw): number {
  const sampler = oneOf(raw, 'OTEL_TRACES_SAMPLER', 'parentbased_always_on', SAMPLERS);
  const arg = present(raw, 'OTEL_TRACES_SAMPLER_ARG') ?? '1';
  const ratio = /^(0|1|0?\.\d+|1\.0*)$/.test(arg) ? Number(arg) : NaN;
  if (!(ratio >= 0 && ratio <= 1))
    throw new EnvError(
      `OTEL_TRACES_SAMPLER_ARG=${JSON.stringify(arg)} is invalid: expected the share of turns traced, from 0 to 1 (e.g. 0.1)`,
    );
  if (sampler.endsWith('always_on')) return 1;
  if (sampler.endsWith('always_off')) return 0;
  return ratio;
}

/**
 * `key=value,key=value` (W3C Baggage's form, which OpenTelemetry's lists take), values
 * percent-decoded. An error names the variable and the key, never a value (headers hold keys).
 */
function keyValues(
  raw: Raw,
  name: string,
  isKey: (key: string) => boolean,
): Record<string, string> {
  const text = present(raw, name);
  const pairs: Record<string, string> = {};
  if (text === undefined) return pairs;
  for (const item of text.split(',')) {
    if (item.trim() === '') continue;
    const at = item.indexOf('=');
    const key = (at < 0 ? item : item.slice(0, at)).trim();
    if (at < 0 || !isKey(key)) {
      // An item with no `=` may be a value: only a key is ever quoted.
      const what = at < 0 ? 'an item has no "="' : `${JSON.stringify(key)} is not a valid key`;
      const example =
        name === 'OTEL_EXPORTER_OTLP_HEADERS'
          ? 'x-api-key=…,x-team=voice'
          : 'deployment.environment=production,k8s.pod.name=engine-0';
      throw new EnvError(
        `${name} is invalid: ${what}; expected key=value pairs separated by commas, e.g. ${example}`,
      );
    }
    let value: string;
    try {
      value = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      throw new EnvError(`${name} is invalid: the value of ${key} is not percent-encoded text`);
    }
    pairs[key] = value;
  }
  return pairs;
}

/** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, or OTEL_EXPORTER_OTLP_ENDPOINT's `/v1/traces`. */
function tracesUrl(raw: Raw): string {
  const traces = httpUrl(raw, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', '');
  if (traces) return traces;
  const base = httpUrl(raw, 'OTEL_EXPORTER_OTLP_ENDPOINT', '', ['/v1/traces']);
  return base && endpointOf(base, '/v1/traces');
}

export function parseTracing(raw: Raw): TracingSettings {
  const headers = keyValues(raw, 'OTEL_EXPORTER_OTLP_HEADERS', (key) => HTTP_TOKEN.test(key));
  for (const [header, value] of Object.entries(headers)) {
    const fault = headerValueFault(value);
    if (fault)
      throw new EnvError(
        `OTEL_EXPORTER_OTLP_HEADERS is invalid: the value of ${header} holds ${fault}`,
      );
  }
  return {
    url: bool(raw, 'OTEL_SDK_DISABLED') === true ? '' : tracesUrl(raw),
    protocol: oneOf(raw, 'OTEL_EXPORTER_OTLP_PROTOCOL', 'http/protobuf', OTLP_PROTOCOLS),
    headers,
    serviceName: present(raw, 'OTEL_SERVICE_NAME') ?? 'agent-engine',
    resourceAttributes: keyValues(raw, 'OTEL_RESOURCE_ATTRIBUTES', (key) => /^[\w.-]+$/.test(key)),
    scheduleDelayMs: int(raw, 'OTEL_BSP_SCHEDULE_DELAY', 5000, 0, 600_000),
    sampleRatio: sampleRatio(raw),
    tls: Object.fromEntries(
      (
        [
          ['ca', 'OTEL_EXPORTER_OTLP_CERTIFICATE'],
          ['cert', 'OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE'],
          ['key', 'OTEL_EXPORTER_OTLP_CLIENT_KEY'],
        ] as const
      ).flatMap(([option, name]) => {
        const pem = pemFile(raw, name);
        return pem ? [[option, pem]] : [];
      }),
    ),
  };
}
