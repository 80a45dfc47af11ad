/**
 * Secrets of HTTP tools: `${TOOL_SECRET_NAME}` in a tool's `url` or header values is replaced by
 * the environment variable of that name when the tool is called, so that the tools file (a
 * ConfigMap, a repository) holds no key. Only `TOOL_SECRET_*` variables can be named: a
 * definition posted over the admin API cannot read the engine's own keys. The model never sees a
 * secret: `GET /api/tools` shows the reference, and a secret's value is masked in what the tool
 * returns (a backend that echoes its request). Pure: no Nest import.
 */
import { headerValueFault } from '../common/http-fields.js';

/** A reference, or something that looks like one (`${…}`), in a url or header template. */
const REFERENCE = /\$\{([^}]*)\}/g;
/** The names a secret may have: the one pattern behind every matcher of references. */
const SECRET_NAME_PATTERN = 'TOOL_SECRET_[A-Za-z0-9_]+';
const SECRET_NAME = new RegExp(`^${SECRET_NAME_PATTERN}$`);
/** `${TOOL_SECRET_…}`, the name captured; `source` for matchers that combine it with others. */
export const SECRET_REFERENCE = new RegExp(`\\$\\{(${SECRET_NAME_PATTERN})\\}`, 'g');
/** What a session variable (`session.update`'s `variables`) may be called. */
const VARIABLE_NAME_PATTERN = '[A-Za-z0-9_]{1,64}';
export const VARIABLE_NAME = new RegExp(`^${VARIABLE_NAME_PATTERN}$`);
/** `${session.NAME}`: a session variable, the name captured. */
export const VARIABLE_REFERENCE = new RegExp(`\\$\\{session\\.(${VARIABLE_NAME_PATTERN})\\}`, 'g');
/** What replaces a secret's value in a tool's result. */
export const MASK = '[secret]';

/**
 * The secrets one definition refers to, read from `env`; throws an Error saying what is wrong
 * (a reference to another variable, or to one that is not set) for the field it is in.
 */
export function resolveSecrets(
  fields: Record<string, string>,
  env: Record<string, string | undefined>,
): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const [field, template] of Object.entries(fields)) {
    for (const [whole, name = ''] of template.matchAll(REFERENCE)) {
      // A session variable, filled per call.
      if (name.startsWith('session.') && VARIABLE_NAME.test(name.slice(8))) continue;
      if (!SECRET_NAME.test(name))
        throw new Error(
          `field '${field}' refers to ${whole}: only TOOL_SECRET_* environment variables and \${session.NAME} variables can be used`,
        );
      const value = env[name];
      if (value === undefined || value === '')
        throw new Error(`field '${field}' refers to ${whole}, which is not set in the environment`);
      // In a url it is percent-encoded; in a header it goes as it is.
      const fault = field.startsWith('headers.')
        ? headerValueFault(value)
        : /[\r\n\0]/.test(value) && 'a line break';
      if (fault) throw new Error(`field '${field}' refers to ${whole}, whose value holds ${fault}`);
      secrets[name] = value;
    }
  }
  return secrets;
}

/** The `TOOL_SECRET_*` variables a code tool's source refers to. */
export function secretsNamedIn(code: string): Set<string> {
  return new Set([...code.matchAll(SECRET_REFERENCE)].map((m) => m[1]!));
}

/**
 * A request of a code tool's `ces_requests` with its `${TOOL_SECRET_*}` references filled in (the
 * URL's percent-encoded; headers, params and bodies as they are), so that Python code can send a
 * key it never sees. Only the secrets the tool's own source names (`named`) are filled in: a
 * reference that reached the request from the model's arguments (a URL it chose, say) names
 * another, or is refused. `used` collects the values, to mask them in the response. Throws for a
 * reference that cannot be filled in.
 */
export function fillSecrets<T>(
  value: T,
  secrets: { env: Record<string, string | undefined>; named: ReadonlySet<string> },
  used: Record<string, string>,
  encode: (text: string) => string = (text) => text,
): T {
  if (typeof value === 'string')
    return value.replace(SECRET_REFERENCE, (whole, name: string) => {
      if (!secrets.named.has(name))
        throw new Error(`${whole} is not named in this tool's code, so it is not filled in`);
      const secret = secrets.env[name];
      if (secret === undefined || secret === '')
        throw new Error(`${whole} is not set in the environment`);
      used[name] = secret;
      return encode(secret);
    }) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => fillSecrets(v, secrets, used)) as T;
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, fillSecrets(v, secrets, used)]),
    ) as T;
  return value;
}

/**
 * Every secret value in `text` replaced by MASK: as sent, percent-encoded as in a URL, or
 * escaped as in a JSON string (quotes and backslashes; `/` as `\/`, as PHP's json_encode writes
 * it). Values shorter than 4 characters are left alone: masking them would garble ordinary text.
 */
export function maskSecrets(text: string, secrets: Record<string, string>): string {
  let masked = text;
  for (const value of Object.values(secrets)) {
    if (value.length < 4) continue;
    const json = JSON.stringify(value).slice(1, -1);
    const forms = new Set([value, encodeURIComponent(value), json, json.replaceAll('/', '\\/')]);
    for (const form of forms) masked = masked.replaceAll(form, MASK);
  }
  return masked;
}

/** Latin-1 holds each byte as one character: text's UTF-8 bytes, found and replaced as such. */
const latin1Of = (text: string) => Buffer.from(text).toString('latin1');

/**
 * fillSecrets for bytes given in base64 (a binary body, an upload): each reference replaced by
 * its secret's UTF-8 bytes.
 */
export function fillBytes(
  base64: string,
  secrets: Parameters<typeof fillSecrets>[1],
  used: Record<string, string>,
): string {
  const text = Buffer.from(base64, 'base64').toString('latin1');
  const filled = fillSecrets(text, secrets, used, latin1Of);
  return Buffer.from(filled, 'latin1').toString('base64');
}

/** maskSecrets for bytes given in base64 (a binary body): each secret's UTF-8 bytes masked. */
export function maskBytes(base64: string, secrets: Record<string, string>): string {
  const bytes = Object.fromEntries(Object.entries(secrets).map(([k, v]) => [k, latin1Of(v)]));
  const text = Buffer.from(base64, 'base64').toString('latin1');
  return Buffer.from(maskSecrets(text, bytes), 'latin1').toString('base64');
}
