import type { Phrases } from '../common/phrases.js';
import { ToolDefinitionError } from './definition-error.js';
import {
  DEFAULT_PARAMETERS,
  type JsonSchema,
  type Tool,
  type ToolDefinitionInput,
} from './tool-definition.js';
import { HTTP_TOKEN, headerValueFault } from '../common/http-fields.js';
import { oauth2Config, type OAuth2Config } from './oauth2.js';
import { resolveSecrets } from './tool-secrets.js';
import { argumentsNamed, bodyStrings } from './body-template.js';
import { FORM_TYPE } from './argument-text.js';
import { MULTIPART_TYPE } from './multipart-body.js';

/** The scheme and authority of a url template (`https://${session.host}:8443`), '' if it has none. */
export function originOf(url: string | undefined): string {
  return /^[^:]+:\/\/[^/?#]*/.exec(url ?? '')?.[0] ?? '';
}

/** `url`'s host has an `{argument}` placeholder or a `${session.NAME}` variable: the caller chooses it. */
function hostVaries(url: string | undefined): boolean {
  return /(^|[^$])\{[^}]*\}|\$\{session\./.test(originOf(url));
}

/**
 * The secrets (`${TOOL_SECRET_*}`) an HTTP or MCP tool's url and headers refer to, read from
 * `env`, once its header names are checked and, when it sends secrets, that its host is written
 * out: a placeholder or session variable there would let the model or a client choose where the
 * secrets go. Throws ToolDefinitionError prefixed by `at` (where the definition stands).
 */
function targetSecrets(
  def: ToolDefinitionInput,
  at: string,
  env: Record<string, string | undefined>,
): Record<string, string> {
  for (const [header, value] of Object.entries(def.headers ?? {})) {
    if (!HTTP_TOKEN.test(header))
      throw new ToolDefinitionError(
        `${at}: field 'headers' has an invalid header name ${JSON.stringify(header)}`,
      );
    const fault = headerValueFault(value);
    if (fault) throw new ToolDefinitionError(`${at}: field 'headers.${header}' holds ${fault}`);
  }
  try {
    const fields: Record<string, string> = { url: def.url! };
    for (const [key, value] of Object.entries(def.headers ?? {})) fields[`headers.${key}`] = value;
    Object.assign(fields, bodyStrings(def.body));
    const secrets = resolveSecrets(fields, env);
    if (Object.keys(secrets).length > 0 && hostVaries(def.url))
      throw new Error(
        "field 'url' has a placeholder in its host: a tool that sends secrets must name its host",
      );
    return secrets;
  } catch (error) {
    throw new ToolDefinitionError(`${at}: ${(error as Error).message}`);
  }
}

/**
 * An HTTP or MCP tool's `oauth2`, made ready (see oauth2.ts), with the secrets it holds; a tool
 * with it may not set its own Authorization header. Throws ToolDefinitionError prefixed by `at`.
 */
function oauth2Fields(
  def: ToolDefinitionInput,
  at: string,
  env: Record<string, string | undefined>,
): { oauth2?: OAuth2Config; secrets: Record<string, string> } {
  if (def.oauth2 === undefined) return { secrets: {} };
  if (Object.keys(def.headers ?? {}).some((h) => h.toLowerCase() === 'authorization'))
    throw new ToolDefinitionError(
      `${at}: field 'headers' sets Authorization, which 'oauth2' sets: give one or the other`,
    );
  if (hostVaries(def.url))
    throw new ToolDefinitionError(
      `${at}: field 'url' has a placeholder in its host: a tool that sends a token must name its host`,
    );
  try {
    const { config, secrets } = oauth2Config(def.oauth2, env);
    return { oauth2: config, secrets };
  } catch (error) {
    throw new ToolDefinitionError(`${at}: ${(error as Error).message}`);
  }
}

/**
 * What an HTTP or MCP tool authenticates with: the secrets its url, headers and `oauth2` hold (to
 * mask in what the model reads), and its `oauth2` made ready. Throws ToolDefinitionError
 * prefixed by `at`.
 */
export function targetAuth(
  def: ToolDefinitionInput,
  at: string,
  env: Record<string, string | undefined>,
): { secrets: Record<string, string>; oauth2?: OAuth2Config } {
  const auth = oauth2Fields(def, at, env);
  return { ...auth, secrets: { ...targetSecrets(def, at, env), ...auth.secrets } };
}

/** The fields every kind of tool shares that are left out when not given. */
export function optionalFields(def: ToolDefinitionInput): Partial<Tool> {
  return {
    ...(def.timeout_secs ? { timeoutSecs: def.timeout_secs } : {}),
    ...(def.retries !== undefined ? { retries: def.retries } : {}),
    ...(def.rate_limit ? { rateLimit: rateLimitOf(def.rate_limit) } : {}),
    ...(def.result_max_chars !== undefined ? { resultMaxChars: def.result_max_chars } : {}),
    ...(def.wait_phrase !== undefined ? { waitPhrase: phrasesOf(def.wait_phrase) } : {}),
    ...(def.modalities ? { modalities: def.modalities } : {}),
    // ("destructive": as the tool is safe or not, see validateToolDefinitions.)
    ...(def.confirm === true ? { confirm: true } : {}),
    ...(def.confirm_prompt ? { confirmPrompt: def.confirm_prompt } : {}),
    ...(def.background ? { background: true } : {}),
    ...(def.at_start ? { atStart: true } : {}),
    ...(def.user_given ? { userGiven: def.user_given } : {}),
    ...(def.max_calls_per_session ? { maxCallsPerSession: def.max_calls_per_session } : {}),
    ...(def.repeatable ? { repeatable: true } : {}),
    ...(def.untrusted ? { untrusted: true } : {}),
    ...(def.deferred ? { deferred: true } : {}),
    ...(def.keywords ? { keywords: def.keywords } : {}),
  };
}

/** A `rate_limit` as the engine keeps it: its window in ms. */
function rateLimitOf({ calls, per_secs, group }: NonNullable<ToolDefinitionInput['rate_limit']>) {
  return { calls, perMs: per_secs * 1000, ...(group !== undefined && { group }) };
}

/** A `wait_phrase` as phrases by lower-case language code (`*`: any language). */
function phrasesOf(phrase: NonNullable<ToolDefinitionInput['wait_phrase']>): Phrases {
  if (typeof phrase === 'string' || Array.isArray(phrase)) return { '*': phrase };
  return Object.fromEntries(Object.entries(phrase).map(([code, p]) => [code.toLowerCase(), p]));
}

/** Methods whose requests carry no body. */
const NO_BODY = new Set(['GET', 'HEAD', 'TRACE']);

/**
 * An HTTP tool's `body` template: refused for a method that carries no body, and (not an object)
 * for a form; a warning names the parameters that no placeholder places, whose values go nowhere.
 */
export function bodyChecks(
  def: ToolDefinitionInput,
  method: string,
  at: string,
  warnings: string[],
): void {
  if (NO_BODY.has(method))
    throw new ToolDefinitionError(
      `${at}: field 'body': a ${method} request carries no body; give the arguments places in 'url'`,
    );
  const type = Object.entries(def.headers ?? {}).find(([k]) => k.toLowerCase() === 'content-type');
  const object = typeof def.body === 'object' && def.body !== null && !Array.isArray(def.body);
  if (type && (FORM_TYPE.test(type[1]) || MULTIPART_TYPE.test(type[1])) && !object)
    throw new ToolDefinitionError(
      `${at}: field 'body' must be an object for a form body (Content-Type ${type[1]})`,
    );
  const placed = argumentsNamed([
    def.url ?? '',
    ...Object.values(def.headers ?? {}),
    ...Object.values(bodyStrings(def.body)),
  ]);
  const properties = (def.parameters as { properties?: Record<string, unknown> } | undefined)
    ?.properties;
  for (const name of def.query_arguments ?? []) placed.add(name);
  const unplaced = Object.keys(properties ?? {}).filter((name) => !placed.has(name));
  if (unplaced.length > 0)
    warnings.push(
      `${at}: parameter ${unplaced.map((n) => `'${n}'`).join(', ')} has no place in 'url', 'headers', 'body' or 'query_arguments': the model's value is not sent`,
    );
}

/**
 * An HTTP tool's `query_arguments` and `header_arguments`: a header argument that no header names
 * would never be sent, one in both lists could not be both, and (a warning) a name the schema's
 * properties lack is likely a slip.
 */
export function argumentListChecks(def: ToolDefinitionInput, at: string, warnings: string[]): void {
  const inHeaders = argumentsNamed(Object.values(def.headers ?? {}));
  const unsent = (def.header_arguments ?? []).filter((name) => !inHeaders.has(name));
  if (unsent.length > 0)
    throw new ToolDefinitionError(
      `${at}: field 'header_arguments': no header's {placeholder} names ${unsent.map((n) => `'${n}'`).join(', ')}: its value would never be sent`,
    );
  const both = (def.query_arguments ?? []).filter((n) => def.header_arguments?.includes(n));
  if (both.length > 0)
    throw new ToolDefinitionError(
      `${at}: field 'header_arguments': ${both.map((n) => `'${n}'`).join(', ')} is in 'query_arguments' too`,
    );
  const properties = (def.parameters as { properties?: Record<string, unknown> } | undefined)
    ?.properties;
  if (!properties) return;
  for (const field of ['query_arguments', 'header_arguments'] as const) {
    const unknown = (def[field] ?? []).filter((name) => !Object.hasOwn(properties, name));
    if (unknown.length > 0)
      warnings.push(
        `${at}: field '${field}' names ${unknown.map((n) => `'${n}'`).join(', ')}, which 'parameters' does not declare: the model is not told of it`,
      );
  }
}

/** A tool the engine runs itself (no request, no code), its `description` and `parameters` defaulted. */
export function ownTool(
  kind: 'end_session' | 'transfer_call' | 'handoff' | 'tool_search',
  def: ToolDefinitionInput,
  description: string,
  parameters: JsonSchema = def.parameters ?? DEFAULT_PARAMETERS,
): Tool {
  return {
    kind,
    name: def.name ?? '',
    description: def.description ?? description,
    parameters,
    url: '',
    method: '',
    headers: {},
    secrets: {},
    code: '',
    ...optionalFields(def),
    raw: def,
  };
}
