/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4) for tools whose API wants a bearer token: the
 * engine gets a token from the tool's token endpoint, keeps it while it is valid, shares it
 * between calls, and gets a new one when it expires or the API answers 401.
 */
import axios from 'axios';
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { offMetadata } from './address-guard.js';
import type { Tool } from './tool-definition.js';
import { timedOut } from './http-io.js';
import { maskSecrets, resolveSecrets, SECRET_REFERENCE } from './tool-secrets.js';
import { connectionErrorCode, untrustedCertificate } from '../common/connection-error.js';
import type { SharedTokens } from './shared-tokens.js';

/** A tool's `oauth2` field as given. */
export interface OAuth2Input {
  /** Required but in an `openapi` entry whose operation declares a clientCredentials flow. */
  token_url?: string;
  client_id: string;
  client_secret: string;
  scope?: string;
  audience?: string;
  client_auth?: 'basic' | 'body';
}

/** A tool's `oauth2`, its secrets filled in. */
export interface OAuth2Config {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  audience?: string;
  /** How the client authenticates to the token endpoint: HTTP Basic (the default), or in the form. */
  clientAuth: 'basic' | 'body';
}

/**
 * The `oauth2` field made ready: `${TOOL_SECRET_*}` in `client_id` and `client_secret` filled
 * in from `env` (and returned, to be masked in what the model reads). Throws an Error naming
 * the field.
 */
export function oauth2Config(
  input: OAuth2Input,
  env: Record<string, string | undefined>,
): { config: OAuth2Config; secrets: Record<string, string> } {
  const tokenUrl = input.token_url;
  if (tokenUrl === undefined) throw new Error("field 'oauth2.token_url' is required");
  if (/\$\{|\{[^}]*\}/.test(tokenUrl))
    throw new Error(
      "field 'oauth2.token_url' holds a placeholder or variable: the endpoint that receives the client's secret is written out",
    );
  const fields = {
    'oauth2.client_id': input.client_id,
    'oauth2.client_secret': input.client_secret,
  };
  for (const [field, value] of Object.entries(fields))
    if (value.includes('${session.'))
      throw new Error(`field '${field}' may refer to TOOL_SECRET_* variables, not session ones`);
  const secrets = resolveSecrets(fields, env);
  const fill = (text: string) =>
    text.replace(SECRET_REFERENCE, (_, name: string) => secrets[name]!);
  const config: OAuth2Config = {
    tokenUrl,
    clientId: fill(input.client_id),
    clientSecret: fill(input.client_secret),
    ...(input.scope !== undefined && { scope: input.scope }),
    ...(input.audience !== undefined && { audience: input.audience }),
    clientAuth: input.client_auth ?? 'basic',
  };
  return { config, secrets: { ...secrets, 'oauth2.client_secret': config.clientSecret } };
}

/** A token endpoint that did not give a token: the message says what it answered. */
export class TokenError extends Error {}

interface Held {
  token: Promise<string>;
  /** When to stop using it (ms since the epoch); Infinity until a 401 says otherwise. */
  expiresAt: number;
}

/** A client's token, and the last one it was given (to mask it in what the model reads). */
interface Client {
  held?: Held;
  issued?: string;
}

/** A token is given up this long before the endpoint said it expires (clock skew, the request's flight). */
const EARLY_MS = 30_000;
/** The longest token response read. */
const MAX_TOKEN_BYTES = 64 * 1024;

/** The most clients whose tokens a process keeps (each client a few hundred bytes). */
export const MAX_CLIENTS = 1024;

/**
 * Tokens by client (`oauth2Identity`), shared by every tool and call of the process. Only the
 * `MAX_CLIENTS` clients used last are kept: a client whose tool set was replaced or whose secret
 * was rotated is let go once that many others came after it (one in use again asks for a token).
 */
export class OAuth2Tokens {
  /**
   * `counted`: told of each token request's outcome (the metrics); `shared`: where the tokens are
   * shared with the other processes and replicas (Redis), if anywhere.
   */
  constructor(
    private readonly counted: (outcome: 'ok' | 'failed') => void = () => {},
    private readonly shared?: SharedTokens,
    maxClients = MAX_CLIENTS,
  ) {
    this.clients = new LRUCache({ max: maxClients });
  }

  private readonly clients: LRUCache<string, Client>;

  /** What is kept of the client of `config` (made if need be; marked as used last). */
  private clientOf(config: OAuth2Config): Client {
    const key = keyOf(config);
    let client = this.clients.get(key);
    if (!client) this.clients.set(key, (client = {}));
    return client;
  }

  /** A valid token for `config`: the one held, or (one request for all waiting calls) a new one. */
  get(config: OAuth2Config, timeoutMs: number): Promise<string> {
    const client = this.clientOf(config);
    const held = client.held;
    if (held && held.expiresAt > Date.now()) return held.token;
    const entry: Held = { token: Promise.resolve(''), expiresAt: Infinity };
    entry.token = this.obtain(config, timeoutMs).then(
      ({ token, expiresAt }) => {
        entry.expiresAt = expiresAt;
        client.issued = token;
        return token;
      },
      (error: unknown) => {
        if (client.held === entry) delete client.held; // the next call asks again
        throw error;
      },
    );
    client.held = entry;
    return entry.token;
  }

  /** The API refused `token` (HTTP 401): the next `get` asks for a new one, unless one came meanwhile. */
  async refuse(config: OAuth2Config, token: string): Promise<void> {
    const client = this.clientOf(config);
    const held = client.held;
    if (held && (await held.token.catch(() => undefined)) === token && client.held === held)
      delete client.held;
    await this.shared?.drop(keyOf(config), token);
  }

  /** A token the other processes share, else a new one from the endpoint (then shared). */
  private async obtain(
    config: OAuth2Config,
    timeoutMs: number,
  ): Promise<{ token: string; expiresAt: number }> {
    const key = keyOf(config);
    const kept = await this.shared?.read(key, config.clientSecret);
    if (kept && kept.expiresAt > Date.now()) return kept;
    let given: { token: string; expiresInSecs?: number };
    try {
      given = await this.request(config, timeoutMs);
    } catch (error) {
      this.counted('failed');
      throw error;
    }
    this.counted('ok');
    const { token, expiresInSecs: secs } = given;
    const expiresAt =
      secs === undefined ? Infinity : Date.now() + Math.max(secs * 1000 - EARLY_MS, secs * 500);
    await this.shared?.keep(key, config.clientSecret, token, expiresAt);
    return { token, expiresAt };
  }

  /**
   * `send` with a token for `config`; sent once more with a new token when `refused` says the
   * API refused the one it had (HTTP 401: revoked, or expired early).
   */
  async authorised<R>(
    config: OAuth2Config,
    timeoutMs: number,
    send: (token: string) => Promise<R>,
    refused: (answer: R) => boolean,
  ): Promise<R> {
    const token = await this.get(config, timeoutMs);
    const answer = await send(token);
    if (!refused(answer)) return answer;
    await this.refuse(config, token);
    return send(await this.get(config, timeoutMs));
  }

  /** What the model must not read of a tool's: its secrets, and its current bearer token. */
  secretsOf(tool: Pick<Tool, 'secrets' | 'oauth2'>): Record<string, string> {
    const token = tool.oauth2 && this.clients.get(keyOf(tool.oauth2))?.issued;
    return token ? { ...tool.secrets, 'oauth2.access_token': token } : tool.secrets;
  }

  private async request(
    config: OAuth2Config,
    timeoutMs: number,
  ): Promise<{ token: string; expiresInSecs?: number }> {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (config.scope) form.set('scope', config.scope);
    if (config.audience) form.set('audience', config.audience);
    const headers: Record<string, string> = {
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'application/json',
    };
    if (config.clientAuth === 'basic') {
      // RFC 6749 §2.3.1: id and secret form-encoded, then joined and base64-encoded.
      const pair = `${formEncode(config.clientId)}:${formEncode(config.clientSecret)}`;
      headers.Authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    } else {
      form.set('client_id', config.clientId);
      form.set('client_secret', config.clientSecret);
    }
    // The endpoint's address is left out: nothing the model can use, and it could repeat it to
    // the user (the admin has it in the tool's definition).
    const fail = (why: string) =>
      new TokenError(
        `cannot get an access token from the token endpoint: ${maskSecrets(why, { secret: config.clientSecret })}`,
      );
    let response;
    try {
      response = await axios.post<string>(config.tokenUrl, form.toString(), {
        headers,
        responseType: 'text',
        transformResponse: [(data: unknown) => data],
        timeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
        maxContentLength: MAX_TOKEN_BYTES,
        validateStatus: () => true,
        ...offMetadata(config.tokenUrl),
        // Never followed: a 307 would carry the client's secret (in the form) to wherever it points.
        maxRedirects: 0,
      });
    } catch (error) {
      if (timedOut(error)) throw fail(`timed out after ${timeoutMs / 1000}s`);
      const certificate = untrustedCertificate(error);
      if (certificate) throw fail(`its TLS certificate is not trusted (${certificate})`);
      // axios's words for an answer past maxContentLength.
      if (/^maxContentLength size/.test((error as Error).message))
        throw fail(`the answer is larger than ${MAX_TOKEN_BYTES} bytes`);
      const code = connectionErrorCode(error);
      throw fail(code ? `cannot reach it (${code})` : ((error as Error).message ?? String(error)));
    }
    const body = String(response.data ?? '');
    if (response.status < 200 || response.status > 299)
      throw fail(`HTTP ${response.status}: ${body.slice(0, 300)}`);
    let parsed: { access_token?: unknown; expires_in?: unknown };
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      throw fail('the answer is not JSON');
    }
    if (typeof parsed.access_token !== 'string' || parsed.access_token === '')
      throw fail('the answer has no access_token');
    const expiresIn = Number(parsed.expires_in);
    return {
      token: parsed.access_token,
      ...(Number.isFinite(expiresIn) && expiresIn > 0 && { expiresInSecs: expiresIn }),
    };
  }
}

/**
 * Which client a config is: tokens are shared only by tools of the same client, secret and
 * request (a misconfigured secret must not ride on another tool's token). The secret enters as
 * a digest.
 */
export function oauth2Identity(config: OAuth2Config): string {
  const secret = createHash('sha256').update(config.clientSecret).digest('hex').slice(0, 16);
  const { tokenUrl, clientId, scope, audience, clientAuth } = config;
  return JSON.stringify([tokenUrl, clientId, secret, scope, audience, clientAuth]);
}

const keyOf = oauth2Identity;

/** application/x-www-form-urlencoded, as RFC 6749 §2.3.1 wants the id and secret before Basic. */
function formEncode(text: string): string {
  return new URLSearchParams({ v: text }).toString().slice(2);
}
